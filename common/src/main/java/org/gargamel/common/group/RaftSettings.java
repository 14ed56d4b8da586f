package org.gargamel.common.group;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The write-set log's consensus (jgroups-raft) for one member: its id (the node's name), every member's id (the
 * majority is computed from them, so all members must list the same set), where its log is kept, and whether an
 * append is forced to disk before it counts (durability across a crash of every machine at once; off for throw-away
 * embedded runs).
 *
 * @param logDirectory null keeps the log in memory (tests): a restarted member then starts from an empty log
 * @param joining      this member is not one of {@code members} yet: it joins as a learner (it neither votes nor counts
 *                     towards a majority) until the members add it (the schedule log's member replacing a site's
 *                     earlier one, docs/multisite.md); {@code members} is then the configured list it starts from
 */
public record RaftSettings(String raftId, List<String> members, Path logDirectory, boolean fsync, boolean joining) {
    public RaftSettings {
        Objects.requireNonNull(raftId, "raftId");
        members = List.copyOf(members);
        if (!joining && !members.contains(raftId)) {
            throw new IllegalArgumentException("raft id " + raftId + " is not one of the members " + members);
        }
        if (joining && members.contains(raftId)) {
            throw new IllegalArgumentException(
                    "raft id " + raftId + " joins but is already one of the members " + members);
        }
        if (members.size() != members.stream().distinct().count()) {
            throw new IllegalArgumentException("the members " + members + " name one member twice");
        }
    }

    /** A member of {@code members} from the start. */
    public RaftSettings(String raftId, List<String> members, Path logDirectory, boolean fsync) {
        this(raftId, members, logDirectory, fsync, false);
    }

    /** How many members must hold an entry before it is committed. */
    public int majority() {
        return members.size() / 2 + 1;
    }
}
