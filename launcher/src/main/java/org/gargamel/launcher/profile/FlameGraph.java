package org.gargamel.launcher.profile;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A flame graph of collapsed stacks as a standalone SVG file, readable in any browser without script: every frame a
 * rectangle whose width is proportional to its samples, roots at the bottom, callees above their callers, siblings in
 * alphabetical order; green for Java, orange for the kernel, yellow for native code (shades vary with the name, the
 * same name always the same shade). Each frame's tooltip ({@code <title>}) names it with its samples and their share.
 * Frames of less than {@link #MIN_SHARE} of the samples are left out, with their callees; a frame's label is cut to
 * what fits in its rectangle.
 */
public final class FlameGraph {
    /** Frames with a smaller share of all samples are not drawn (they would be under a pixel or two wide). */
    public static final double MIN_SHARE = 0.001;

    static final int WIDTH = 1200;
    static final int FRAME_HEIGHT = 16;
    private static final int MARGIN = 10;
    private static final int HEADER = 48;
    private static final int FONT_SIZE = 11;
    /** The advance of a monospace font at {@link #FONT_SIZE} (0.6 em), with room to spare. */
    static final double CHAR_WIDTH = 0.62 * FONT_SIZE;

    private static final double TEXT_PADDING = 3;

    private FlameGraph() {}

    /** The SVG document of {@code profile}, with {@code title} above the graph. */
    public static String render(CollapsedStacks profile, String title) {
        Node root = new Node(new Frame("all", FrameKind.NATIVE));
        for (CollapsedStacks.Stack stack : profile.stacks()) {
            root.add(stack.frames(), stack.samples());
        }
        long total = root.samples;
        long minimum = (long) Math.ceil(total * MIN_SHARE);
        int depth = total == 0 ? 1 : root.depth(minimum);
        int height = HEADER + depth * FRAME_HEIGHT + 2 * MARGIN;
        StringBuilder svg = new StringBuilder(64 * 1024);
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\""
                        + " viewBox=\"0 0 %d %d\">%n",
                WIDTH,
                height,
                WIDTH,
                height));
        svg.append("<style>text { font-family: monospace; font-size: ")
                .append(FONT_SIZE)
                .append("px; fill: #000; } text.h { font-family: sans-serif; } g.f:hover rect { stroke: #000;"
                        + " stroke-width: 0.5; } g.f text { pointer-events: none; }</style>\n");
        svg.append(String.format(
                Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fdfdf6\"/>%n", WIDTH, height));
        svg.append(String.format(
                Locale.ROOT,
                "<text class=\"h\" x=\"%d\" y=\"22\" text-anchor=\"middle\" style=\"font-size: 17px\">%s</text>%n",
                WIDTH / 2,
                Xml.escape(title)));
        svg.append(String.format(
                Locale.ROOT,
                "<text class=\"h\" x=\"%d\" y=\"40\" text-anchor=\"middle\">%,d samples; green Java, orange kernel,"
                        + " yellow native; frames under %.1f%% left out; hover a frame for its samples</text>%n",
                WIDTH / 2,
                total,
                MIN_SHARE * 100));
        if (total > 0) {
            double scale = (WIDTH - 2.0 * MARGIN) / total;
            new Drawing(svg, total, minimum, scale, height - MARGIN).draw(root, MARGIN, 0);
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** A frame at one place in the call tree: its samples (its own and its callees') and its callees by frame. */
    private static final class Node {
        final Frame frame;
        long samples;
        final Map<Frame, Node> children = new HashMap<>();

        Node(Frame frame) {
            this.frame = frame;
        }

        void add(List<Frame> frames, long count) {
            Node node = this;
            node.samples += count;
            for (Frame frame : frames) {
                node = node.children.computeIfAbsent(frame, Node::new);
                node.samples += count;
            }
        }

        /** How many levels are drawn from this node up: the nodes of at least {@code minimum} samples. */
        int depth(long minimum) {
            int deepest = 0;
            for (Node child : children.values()) {
                if (child.samples >= minimum) {
                    deepest = Math.max(deepest, child.depth(minimum));
                }
            }
            return deepest + 1;
        }

        List<Node> sortedChildren() {
            List<Node> sorted = new ArrayList<>(children.values());
            sorted.sort(
                    Comparator.comparing((Node node) -> node.frame.name()).thenComparing(node -> node.frame.kind()));
            return sorted;
        }
    }

    /** Appends the frames' elements; {@code bottom} is the y of the lower edge of the root's row. */
    private record Drawing(StringBuilder svg, long total, long minimum, double scale, int bottom) {

        void draw(Node node, double x, int level) {
            double width = node.samples * scale;
            double y = bottom - (level + 1.0) * FRAME_HEIGHT;
            String name = node.frame.name();
            String kind = level == 0 ? "root" : node.frame.kind().label();
            svg.append(String.format(
                    Locale.ROOT,
                    "<g class=\"f\"><title>%s (%s): %,d samples, %.2f%%</title>"
                            + "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>",
                    Xml.escape(name),
                    kind,
                    node.samples,
                    100.0 * node.samples / total,
                    x,
                    y,
                    width,
                    FRAME_HEIGHT - 1,
                    level == 0 ? "rgb(200,200,200)" : colour(node.frame)));
            String label = label(node.frame, width);
            if (!label.isEmpty()) {
                svg.append(String.format(
                        Locale.ROOT,
                        "<text x=\"%.2f\" y=\"%.1f\">%s</text>",
                        x + TEXT_PADDING,
                        y + FRAME_HEIGHT - 4.5,
                        Xml.escape(label)));
            }
            svg.append("</g>\n");
            double childX = x;
            for (Node child : node.sortedChildren()) {
                if (child.samples >= minimum) {
                    draw(child, childX, level + 1);
                }
                childX += child.samples * scale;
            }
        }
    }

    /**
     * What fits of a frame's name in {@code width} pixels: the name; else, for a Java method, its class and method
     * without the package; else as much of that as fits with ".." after it; nothing if under 3 characters would.
     */
    static String label(Frame frame, double width) {
        int fits = (int) Math.floor((width - 2 * TEXT_PADDING) / CHAR_WIDTH);
        String name = frame.name();
        if (fits >= name.length()) {
            return name;
        }
        if (frame.kind() == FrameKind.JAVA && name.lastIndexOf('/') >= 0) {
            name = name.substring(name.lastIndexOf('/') + 1);
            if (fits >= name.length()) {
                return name;
            }
        }
        if (fits < 5) {
            return "";
        }
        return name.substring(0, fits - 2) + "..";
    }

    /** A shade of the kind's colour, picked by the name's hash so that a name keeps its shade across graphs. */
    static String colour(Frame frame) {
        double v = (frame.name().hashCode() & 0xffff) / 65536.0;
        int[] rgb = switch (frame.kind()) {
            case JAVA -> new int[] {50 + (int) (v * 60), 170 + (int) (v * 50), 50 + (int) (v * 40)};
            case KERNEL -> new int[] {235, 120 + (int) (v * 50), 30 + (int) (v * 30)};
            case NATIVE -> new int[] {215 + (int) (v * 30), 195 + (int) (v * 35), 55 + (int) (v * 35)};
        };
        return "rgb(" + rgb[0] + "," + rgb[1] + "," + rgb[2] + ")";
    }
}
