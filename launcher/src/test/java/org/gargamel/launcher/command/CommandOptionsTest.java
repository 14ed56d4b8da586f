package org.gargamel.launcher.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class CommandOptionsTest {
    private final CommandOptions options = new CommandOptions("tpcc run")
            .repeatable("--jdbc-url", "URL", "server")
            .value("--warehouses", "W", "warehouses")
            .value("--duration", "D", "how long")
            .flag("--quiet", "quiet");

    @Test
    void parsesValuesRepeatsFlagsAndInlineValues() {
        CommandOptions.Parsed parsed = options.parse(List.of("--jdbc-url", "a", "--jdbc-url=b", "--warehouses", "4",
                "--quiet", "--duration", "2m"));
        assertEquals(List.of("a", "b"), parsed.all("--jdbc-url"));
        assertEquals(4, parsed.integer("--warehouses", 1, 1, 1000));
        assertTrue(parsed.flag("--quiet"));
        assertEquals(Duration.ofMinutes(2), parsed.duration("--duration", Duration.ZERO));
    }

    @Test
    void unknownOptionNamesTheOptionAndTheCommand() {
        UsageException e = assertThrows(UsageException.class, () -> options.parse(List.of("--warehouse", "1")));
        assertTrue(e.getMessage().startsWith("unknown option '--warehouse' for 'tpcc run'"), e.getMessage());
    }

    @Test
    void outOfRangeAndMalformedValuesAreRejected() {
        UsageException zero = assertThrows(UsageException.class,
                () -> options.parse(List.of("--warehouses", "0")).integer("--warehouses", 1, 1, 1000));
        assertTrue(zero.getMessage().contains("--warehouses") && zero.getMessage().contains("got 0"), zero.getMessage());
        UsageException text = assertThrows(UsageException.class,
                () -> options.parse(List.of("--warehouses", "four")).integer("--warehouses", 1, 1, 1000));
        assertTrue(text.getMessage().contains("'four'"), text.getMessage());
        assertThrows(UsageException.class, () -> options.parse(List.of("--warehouses")));
        assertThrows(UsageException.class, () -> options.parse(List.of("--warehouses", "1", "--warehouses", "2")));
    }

    @Test
    void durationsAcceptUnitsAndRejectNonsense() {
        assertEquals(Duration.ofSeconds(60), CommandOptions.parseDuration("60s"));
        assertEquals(Duration.ofSeconds(45), CommandOptions.parseDuration("45"));
        assertEquals(Duration.ofMillis(500), CommandOptions.parseDuration("500ms"));
        assertEquals(Duration.ofHours(1), CommandOptions.parseDuration("1h"));
        assertThrows(IllegalArgumentException.class, () -> CommandOptions.parseDuration("0s"));
        assertThrows(IllegalArgumentException.class, () -> CommandOptions.parseDuration("10 parsecs"));
        assertThrows(IllegalArgumentException.class, () -> CommandOptions.parseDuration("s"));
    }
}
