package org.gargamel.common.group;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

/**
 * Reservations of TCP port numbers among the JVMs of one machine, for {@link LoopbackPorts}: a port is reserved by an
 * exclusive lock on the one byte at offset {@code port} of a file every JVM of ours opens (the file stays empty; a lock
 * may lie beyond its end).
 *
 * <p>Invariant: while a JVM holds a port's reservation, {@link #reserve} returns false for that port in every other JVM
 * on the same file, and in this JVM too (a port is never reserved twice). A reservation lasts until {@link #release}
 * or until its JVM exits, however it exits: the operating system drops a process's locks when it dies, so a killed JVM
 * leaves nothing stale behind, and the file is never deleted (deleting a lock file races with a JVM about to lock it).
 * Guarded by {@code PortReservationsTest}.
 *
 * <p>One instance per file per JVM: POSIX drops every lock a process holds on a file when it closes any channel on
 * that file, so the channel is opened once and never closed.
 */
final class PortReservations {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PortReservations.class);

    private final Path file;
    /** Null when the file could not be opened: reservations then hold among this JVM's picks only ({@link #open}). */
    private final FileChannel channel;

    private final Map<Integer, FileLock> held = new HashMap<>();

    private PortReservations(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /**
     * The reservations kept in {@code file}, created if absent and made writable by every user (so that another
     * user's JVM can take its locks too).
     */
    static PortReservations open(Path file) {
        try {
            FileChannel channel;
            try {
                // Not created if it exists: Linux refuses an O_CREAT open of another user's file in a sticky
                // directory such as /tmp (fs.protected_regular), even one it may write.
                channel = FileChannel.open(
                        file, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                channel = FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS);
                try {
                    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
                } catch (IOException | UnsupportedOperationException widening) {
                    // Not POSIX, or created by another user in the meantime: this user's JVMs share it still.
                }
            }
            return new PortReservations(file, channel);
        } catch (IOException | UnsupportedOperationException e) {
            // A symlink, another user's file this one may not write, a file system without locks: ports are still
            // reserved among this JVM's own picks, as before there was a file, rather than no port for anyone.
            LOG.warn(
                    "cannot open {}, where the JVMs of this machine reserve the ports they pick ({}): ports picked"
                            + " here are reserved against this JVM's own picks only",
                    file,
                    e.toString());
            return new PortReservations(file, null);
        }
    }

    /** Reserves {@code port}: true if no JVM on this file, this one included, holds it; false otherwise. */
    synchronized boolean reserve(int port) {
        if (held.containsKey(port)) {
            return false;
        }
        if (channel == null) {
            held.put(port, null);
            return true;
        }
        FileLock lock;
        try {
            lock = channel.tryLock(port, 1, false);
        } catch (OverlappingFileLockException e) {
            return false; // this JVM holds it through another channel on the same file (see the class comment)
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock port " + port + " in " + file + ": " + e.getMessage(), e);
        }
        if (lock == null) {
            return false; // another JVM holds it
        }
        held.put(port, lock);
        return true;
    }

    /** Gives up this JVM's reservation of {@code port}, if it holds one. */
    synchronized void release(int port) {
        FileLock lock = held.remove(port);
        if (lock == null) {
            return; // not held, or held without a file
        }
        try {
            lock.release();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unlock port " + port + " in " + file + ": " + e.getMessage(), e);
        }
    }
}
