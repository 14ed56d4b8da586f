package org.gargamel.common.convergence;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.Secrets;

/** How reports name a database: its position in the command line and its URL without the password. */
public final class DatabaseNames {
    private DatabaseNames() {}

    public static String of(int index, String jdbcUrl) {
        return "db" + index + " " + withoutPassword(jdbcUrl);
    }

    public static List<String> of(List<String> jdbcUrls) {
        List<String> names = new ArrayList<>(jdbcUrls.size());
        for (int i = 0; i < jdbcUrls.size(); i++) {
            names.add(of(i, jdbcUrls.get(i)));
        }
        return names;
    }

    /** Reports end up in result.json and logs, so a password in a URL is masked. */
    public static String withoutPassword(String jdbcUrl) {
        return Secrets.maskUrl(jdbcUrl);
    }
}
