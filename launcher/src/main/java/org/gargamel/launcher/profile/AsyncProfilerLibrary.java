package org.gargamel.launcher.profile;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * async-profiler's native agent, {@code libasyncProfiler.so}, as a file that a JVM can load: the launcher carries it
 * on its class path (Maven Central's {@code tools.profiler:async-profiler:4.1:jar:linux-x64}, shaded into
 * gargamel-all.jar) and writes it once to {@code $TMPDIR/gargamel-async-profiler-HASH/}, named by its content's hash
 * and kept there. The path must stay the same across runs: a JVM profiled twice must load the library it already
 * holds, not a second copy of it. A file found there is used only if it holds exactly the library's bytes.
 */
public final class AsyncProfilerLibrary {
    /** Where the library is on the class path. */
    static final String RESOURCE = "linux-x64/libasyncProfiler.so";

    private static Path extracted;

    private AsyncProfilerLibrary() {}

    /** The library's file, written on the first call. */
    public static synchronized Path path() throws ProfilerException {
        if (extracted == null) {
            extracted = extract();
        }
        return extracted;
    }

    private static Path extract() throws ProfilerException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new ProfilerException("this build carries async-profiler for linux-x64 only; this is " + os + "/"
                    + arch + " (add that platform's tools.profiler:async-profiler jar to launcher/pom.xml)");
        }
        byte[] library = read();
        Path directory = Path.of(System.getProperty("java.io.tmpdir"), "gargamel-async-profiler-" + hash(library));
        try {
            return writeOnce(directory, library);
        } catch (IOException e) {
            // Someone else's directory, or an unwritable one: a private copy for this run.
            try {
                return writeOnce(Files.createTempDirectory("gargamel-async-profiler-"), library);
            } catch (IOException again) {
                again.addSuppressed(e);
                throw new ProfilerException(
                        "cannot write async-profiler's library to a temporary file: " + again, again);
            }
        }
    }

    private static Path writeOnce(Path directory, byte[] library) throws IOException {
        try {
            Files.createDirectory(
                    directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (FileAlreadyExistsException e) {
            UserPrincipal me = directory
                    .getFileSystem()
                    .getUserPrincipalLookupService()
                    .lookupPrincipalByName(System.getProperty("user.name"));
            if (!Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)
                    || !Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).equals(me)) {
                throw new AccessDeniedException(directory.toString(), null, "not a directory of " + me.getName());
            }
        }
        Path file = directory.resolve("libasyncProfiler.so");
        if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && Arrays.equals(Files.readAllBytes(file), library)) {
            return file;
        }
        Path partial = Files.createTempFile(directory, "libasyncProfiler", ".partial");
        Files.write(partial, library);
        return Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static byte[] read() throws ProfilerException {
        try (InputStream in = AsyncProfilerLibrary.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new ProfilerException(RESOURCE + " is not on the class path (the launcher's dependency"
                        + " tools.profiler:async-profiler, classifier linux-x64)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new ProfilerException("cannot read " + RESOURCE + " from the class path: " + e, e);
        }
    }

    private static String hash(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
