package org.gargamel.frontend.session;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gargamel.frontend.protocol.BackendMessages;

/**
 * The answers a session gathered for its client, written out when the session waits for the client again: one buffer,
 * replaced by a fresh one each time it goes out.
 */
final class Replies {
    private final ChannelHandlerContext channel;
    private ByteBuf out;

    Replies(ChannelHandlerContext channel) {
        this.channel = channel;
        this.out = channel.alloc().buffer();
    }

    /** The buffer the next answer goes into. */
    ByteBuf out() {
        return out;
    }

    /** Whether the buffer was released (the channel is gone). */
    boolean released() {
        return out == null;
    }

    void release() {
        if (out != null) {
            out.release();
            out = null;
        }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // a failed write closes the channel; Netty reports it
    void flush() {
        if (out != null && out.isReadable() && channel.channel().isActive()) {
            channel.writeAndFlush(out);
            out = channel.alloc().buffer();
        }
    }

    /** Writes what was gathered, then closes the connection. */
    @SuppressWarnings("FutureReturnValueIgnored") // the listener closes the channel once the last answer is out
    void flushAndClose() {
        if (channel.channel().isActive()) {
            ByteBuf last = out;
            out = channel.alloc().buffer();
            channel.writeAndFlush(last).addListener(ChannelFutureListener.CLOSE);
        }
    }

    void error(SqlError error) {
        Map<Character, String> fields = new LinkedHashMap<>();
        fields.put('S', "ERROR");
        fields.put('V', "ERROR");
        fields.put('C', error.sqlState);
        fields.put('M', error.getMessage());
        fields.put('D', error.detail);
        fields.put('H', error.hint);
        if (error.position > 0) {
            fields.put('P', Integer.toString(error.position));
        }
        BackendMessages.errorOrNotice(out, 'E', fields);
    }

    void notice(String severity, String sqlState, String message) {
        BackendMessages.errorOrNotice(out, 'N', fields(severity, sqlState, message));
    }

    /** A FATAL ErrorResponse (the connection closes after it). */
    void fatal(String sqlState, String message) {
        BackendMessages.errorOrNotice(out, 'E', fields("FATAL", sqlState, message));
    }

    void complete(String tag) {
        BackendMessages.commandComplete(out, tag);
    }

    void readyForQuery(TransactionBlock block) {
        BackendMessages.readyForQuery(out, block.status());
    }

    private static Map<Character, String> fields(String severity, String sqlState, String message) {
        Map<Character, String> fields = new LinkedHashMap<>();
        fields.put('S', severity);
        fields.put('V', severity);
        fields.put('C', sqlState);
        fields.put('M', message);
        return fields;
    }
}
