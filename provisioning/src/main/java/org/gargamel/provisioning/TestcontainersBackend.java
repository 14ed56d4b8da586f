package org.gargamel.provisioning;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;

/**
 * PostgreSQL containers through Testcontainers, reached by reflection so that its classes load only when that backend
 * is chosen.
 *
 * <p>Invariant: a missing class is reported as a class-path problem and a failed start as a missing Docker engine,
 * never one as the other; on failure every container started is stopped ({@code PostgresClusterTest}).
 */
final class TestcontainersBackend {
    /** The container class of Testcontainers 2's PostgreSQL module (testcontainers-postgresql). */
    static final String POSTGRESQL_CONTAINER = "org.testcontainers.postgresql.PostgreSQLContainer";

    private TestcontainersBackend() {}

    /** Starts {@code count} containers of {@code image}, adding each to {@code started} and its URL to {@code urls}. */
    static void start(int count, String image, List<AutoCloseable> started, List<String> urls) {
        Class<?> containerClass = containerClass(POSTGRESQL_CONTAINER);
        try {
            for (int i = 0; i < count; i++) {
                Object container = containerClass.getConstructor(String.class).newInstance(image);
                containerClass.getMethod("start").invoke(container);
                started.add((AutoCloseable) container);
                Method url = containerClass.getMethod("getJdbcUrl");
                Method user = containerClass.getMethod("getUsername");
                Method password = containerClass.getMethod("getPassword");
                urls.add(url.invoke(container) + "&user=" + user.invoke(container) + "&password="
                        + password.invoke(container));
            }
        } catch (InvocationTargetException | RuntimeException e) {
            PostgresCluster.closeAll(started);
            Throwable cause = e instanceof InvocationTargetException thrown ? thrown.getCause() : e;
            throw new PostgresProvisioningException(
                    "cannot start PostgreSQL with Testcontainers (it needs a running " + "Docker engine): "
                            + cause.getMessage(),
                    cause);
        } catch (ReflectiveOperationException e) {
            PostgresCluster.closeAll(started);
            throw new PostgresProvisioningException(
                    "cannot use the Testcontainers backend: " + containerClass.getName()
                            + " is not the class this code was written for (" + e + ")",
                    e);
        }
    }

    /**
     * Testcontainers' container class {@code name}. Its absence is a class-path problem, reported as such (never as a
     * missing Docker engine).
     */
    static Class<?> containerClass(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new PostgresProvisioningException(
                    "cannot use the Testcontainers backend: " + name + " is not on the " + "class path (" + e
                            + "); it is in org.testcontainers:testcontainers-postgresql 2.x",
                    e);
        }
    }
}
