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
 */
public record RaftSettings(String raftId, List<String> members, Path logDirectory, boolean fsync) {
    public RaftSettings {
        Objects.requireNonNull(raftId, "raftId");
        members = List.copyOf(members);
        if (!members.contains(raftId)) {
            throw new IllegalArgumentException("raft id " + raftId + " is not one of the members " + members);
        }
        if (members.size() != members.stream().distinct().count()) {
            throw new IllegalArgumentException("the members " + members + " name one member twice");
        }
    }

    /** How many members must hold an entry before it is committed. */
    public int majority() {
        return members.size() / 2 + 1;
    }
}
