package org.gargamel.scheduler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.gargamel.common.group.Channels;
import org.gargamel.common.group.RaftLog;
import org.gargamel.common.group.RaftSettings;
import org.gargamel.common.lifecycle.FatalException;
import org.gargamel.common.lifecycle.Futures;
import org.gargamel.common.wire.EpochGranted;
import org.gargamel.common.wire.Message;
import org.gargamel.common.wire.ScheduleCall;
import org.gargamel.common.wire.SchedulePlacement;
import org.gargamel.scheduler.sites.ScheduleLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This site's end of the schedule log (docs/multisite.md): joined once the write-set log made this scheduler its
 * site's active one (a standby must not stand in it beside the active one as the site's member), and appended to off
 * the loop, one append at a time in the order given (an append waits while the log has no leader; a site's entries
 * keep their order, though the agreement would also take them out of order). An append the log cannot commit stops
 * the scheduler: a site cut off from the others cannot have its calls placed.
 *
 * <p>Made and closed by the scheduler's event loop; its appender thread connects and appends.
 */
final class ScheduleLogLink {
    private static final Logger LOG = LoggerFactory.getLogger(SchedulerServer.class);
    /** How long one change of the schedule log's membership may take before it is tried again. */
    private static final Duration MEMBERSHIP_ATTEMPT = Duration.ofSeconds(10);
    /** In {@code site.logDir}: the Raft id of the member whose log is there (docs/multisite.md). */
    static final String MEMBER_FILE = "member";

    private final SchedulerConfig config;
    private final LoopContext loop;
    private ExecutorService appender;
    /** Made and connected on the {@link #appender} once this scheduler is active; null until then. */
    private volatile ScheduleLog scheduleLog;

    ScheduleLogLink(SchedulerConfig config, LoopContext loop) {
        this.config = config;
        this.loop = loop;
    }

    void start() {
        appender = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "schedule-log-appender");
            thread.setDaemon(true);
            return thread;
        });
    }

    void close() {
        if (appender != null) {
            appender.shutdownNow();
        }
        ScheduleLog joined = scheduleLog;
        if (joined != null) {
            joined.close();
        }
    }

    Optional<String> member() {
        ScheduleLog joined = scheduleLog;
        return joined == null ? Optional.empty() : Optional.of(joined.member());
    }

    List<String> members() {
        ScheduleLog joined = scheduleLog;
        return joined == null ? List.of() : joined.members();
    }

    /**
     * Joins the schedule log as this site's member, on the appender thread, so that this site's first entries are
     * appended once it is connected. The log's entries are read from the first one ({@code entries}, and
     * {@code placements} when the agreement has them; null otherwise): a successor learns its predecessor's calls
     * there. Which member it is: {@link #memberOf}; one that joins as a new member then replaces its site's earlier one.
     */
    void connect(
            EpochGranted grant, long epoch, Consumer<ScheduleCall> entries, Consumer<SchedulePlacement> placements) {
        appender.execute(() -> {
            try {
                String member = memberOf(grant, epoch);
                RaftSettings raft = config.site().raft(member);
                ScheduleLog log = new ScheduleLog(
                        config.site().name(),
                        member,
                        Channels.scheduleLog(
                                config.scheduleGroup(),
                                config.site().name(),
                                raft,
                                config.site().links()),
                        entries,
                        placements,
                        RaftLog.Patience.DEFAULT);
                scheduleLog = log;
                if (!loop.running()) {
                    log.close();
                    return;
                }
                log.connect();
                LOG.info("joined the schedule log as {}", member);
                if (raft.joining()) {
                    Thread replacing = new Thread(
                            () -> {
                                try {
                                    log.replacePredecessors(MEMBERSHIP_ATTEMPT, loop::running);
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                }
                            },
                            "schedule-log-membership");
                    replacing.setDaemon(true);
                    replacing.start();
                }
            } catch (Exception e) {
                if (loop.running()) {
                    loop.fail(new FatalException("cannot join the schedule log: " + e.getMessage(), e));
                }
            }
        });
    }

    /**
     * This scheduler's Raft id in the schedule log. Raft counts on a member never forgetting its log, term and vote, so
     * a scheduler that comes back without its site's copy of the log must not come back as the member it was
     * (docs/multisite.md, A site scheduler's failover): with three sites or more, a scheduler that succeeds another
     * without a copy of the log joins as a new member ({@link ScheduleLog#newMember}) and replaces its predecessor.
     * Its site's name otherwise: the first scheduler of the site, one started again on its log ({@code site.logDir}
     * records which member the log there is), and any with two sites (a two-member log cannot change its membership
     * with one member dead; there the other member holds every committed entry, so an empty log loses nothing).
     */
    private String memberOf(EpochGranted grant, long epoch) throws IOException {
        String site = config.site().name();
        Path logDir = config.site().logDir();
        Path recorded = logDir == null ? null : logDir.resolve(MEMBER_FILE);
        if (recorded != null && Files.exists(recorded)) {
            String member = Files.readString(recorded).trim();
            if (!ScheduleLog.siteOf(member).equals(site)) {
                throw new IOException(
                        recorded + " says the log there is " + member + "'s, not a member of site " + site);
            }
            return member;
        }
        boolean holdsALog = logDir != null && Files.isDirectory(logDir) && hasFiles(logDir);
        String member = config.site().sites().size() >= 3 && grant.succeedsAnother() && !holdsALog
                ? ScheduleLog.newMember(site, epoch)
                : site;
        if (recorded != null) {
            Files.createDirectories(logDir);
            Files.writeString(recorded, member + "\n");
        }
        return member;
    }

    private static boolean hasFiles(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.findAny().isPresent();
        }
    }

    /** Sends a home call's entry, or this site's placement of a call, to the schedule log. */
    void append(Message entry) {
        if (entry instanceof SchedulePlacement placement) {
            append(placement, () -> scheduleLog.append(placement));
        } else {
            ScheduleCall call = (ScheduleCall) entry;
            append(call, () -> scheduleLog.append(call));
        }
    }

    private void append(Message entry, Supplier<CompletableFuture<Void>> append) {
        appender.execute(() -> Futures.whenDone(append.get(), (done, failure) -> {
            if (failure != null && loop.running()) {
                loop.fail(new FatalException(
                        "the schedule log did not take " + entry.describe() + ": " + failure.getMessage(), failure));
            }
        }));
    }
}
