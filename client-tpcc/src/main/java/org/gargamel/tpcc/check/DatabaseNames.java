package org.gargamel.tpcc.check;

import java.util.ArrayList;
import java.util.List;
import org.gargamel.common.config.Secrets;

/** How reports name a database: its position in the command line and its URL without the password. */
final class DatabaseNames {
    private DatabaseNames() {}

    static String of(int index, String jdbcUrl) {
        return "db" + index + " " + withoutPassword(jdbcUrl);
    }

    static List<String> of(List<String> jdbcUrls) {
        List<String> names = new ArrayList<>(jdbcUrls.size());
        for (int i = 0; i < jdbcUrls.size(); i++) {
            names.add(of(i, jdbcUrls.get(i)));
        }
        return names;
    }

    /** Reports end up in result.json and logs, so a password in a URL is masked. */
    static String withoutPassword(String jdbcUrl) {
        return Secrets.maskUrl(jdbcUrl);
    }
}
