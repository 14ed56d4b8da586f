package org.gargamel.common.client;

import java.time.Duration;

/**
 * How a {@link GargamelClient} bounds its calls: how many may be in flight, and how long a call and the connection
 * may wait.
 *
 * @param maxInFlight   calls submitted and not yet answered; one more fails at once with OVERLOADED
 * @param callTimeout   how long a call may wait for its outcome before it fails with TIMED_OUT
 * @param connectTimeout how long {@link GargamelClient#connect} waits to see the scheduler
 */
public record ClientOptions(int maxInFlight, Duration callTimeout, Duration connectTimeout) {
    public ClientOptions {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, got " + maxInFlight);
        }
        if (callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("callTimeout must be positive, got " + callTimeout);
        }
    }

    public static ClientOptions defaults() {
        return new ClientOptions(10_000, Duration.ofSeconds(60), Duration.ofSeconds(30));
    }
}
