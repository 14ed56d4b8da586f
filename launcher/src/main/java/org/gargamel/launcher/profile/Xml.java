package org.gargamel.launcher.profile;

/** Text made safe for XML content and attribute values. */
final class Xml {
    private Xml() {}

    /** {@code text} with the five markup characters escaped and characters XML cannot hold replaced by '?'. */
    static String escape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&apos;");
                default -> {
                    if (Character.isHighSurrogate(c)
                            && i + 1 < text.length()
                            && Character.isLowSurrogate(text.charAt(i + 1))) {
                        escaped.append(c).append(text.charAt(++i));
                    } else if (allowed(c)) {
                        escaped.append(c);
                    } else {
                        escaped.append('?');
                    }
                }
            }
        }
        return escaped.toString();
    }

    private static boolean allowed(char c) {
        return c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD);
    }
}
