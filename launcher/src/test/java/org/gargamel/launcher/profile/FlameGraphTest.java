package org.gargamel.launcher.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The SVG flame graph, read back with the JDK's DOM parser: one group per frame (title, rect, maybe text). */
@Tag("unit")
class FlameGraphTest {

    /** A drawn frame: the text of its title, its rectangle's attributes and its label (empty when none). */
    private record Drawn(String title, double x, double y, double width, String fill, String label) {
        String name() {
            return title.substring(0, title.lastIndexOf(" ("));
        }
    }

    @Test
    void widthsAreProportionalToSamplesAndCalleesSitAboveTheirCallers() throws Exception {
        Map<String, Drawn> frames = draw(
                "java/lang/Thread.run_[j];a/Main.run_[j];a/Main.big_[j] 300",
                "java/lang/Thread.run_[j];a/Main.run_[j];a/Main.small_[j] 100",
                "start_thread;futex_wait_[k] 100");
        Drawn all = frames.get("all");
        assertEquals(FlameGraph.WIDTH - 20, all.width(), 0.01, "the root spans the graph");
        assertEquals(all.width() * 0.8, frames.get("java/lang/Thread.run").width(), 0.01);
        assertEquals(
                3 * frames.get("a/Main.small").width(), frames.get("a/Main.big").width(), 0.01);
        assertEquals(
                frames.get("a/Main.run").width(),
                frames.get("java/lang/Thread.run").width(),
                0.01);
        assertEquals(
                frames.get("a/Main.run").y() - FlameGraph.FRAME_HEIGHT,
                frames.get("a/Main.big").y(),
                0.01);
        // siblings side by side, in alphabetical order, from their caller's left edge
        assertEquals(frames.get("a/Main.run").x(), frames.get("a/Main.big").x(), 0.01);
        assertEquals(
                frames.get("a/Main.big").x() + frames.get("a/Main.big").width(),
                frames.get("a/Main.small").x(),
                0.01);
        assertEquals(
                "a/Main.big (Java): 300 samples, 60.00%",
                frames.get("a/Main.big").title());
        assertEquals(6 + 1, frames.size(), frames.keySet().toString()); // six frames and the root
    }

    @Test
    void framesUnderATenthOfAPercentAreLeftOutWithTheirCallees() throws Exception {
        Map<String, Drawn> frames = draw(
                "a/Main.run_[j];a/Main.work_[j] 9980",
                "a/Main.run_[j];a/Main.rare_[j];a/Main.rarer_[j] 9",
                "a/Main.run_[j];a/Main.seldom_[j] 11");
        assertTrue(frames.containsKey("a/Main.seldom"), "11 of 10,000 samples: drawn");
        assertFalse(frames.containsKey("a/Main.rare"), "9 of 10,000 samples: left out");
        assertFalse(frames.containsKey("a/Main.rarer"), "and so is what it called");
        // the room of what is left out stays empty: the next sibling (in alphabetical order) does not move left
        assertEquals(
                frames.get("a/Main.run").x() + frames.get("a/Main.run").width() * 9 / 10_000,
                frames.get("a/Main.seldom").x(),
                0.01);
    }

    @Test
    void framesAreColouredByKind() throws Exception {
        Map<String, Drawn> frames = draw("start_thread;JavaMain;a/Main.main_[0];write_[k] 10");
        assertTrue(frames.get("write").fill().startsWith("rgb(235,"), "kernel: orange");
        int[] java = rgb(frames.get("a/Main.main").fill());
        assertTrue(
                java[1] > java[0] && java[1] > java[2],
                "Java: green, " + frames.get("a/Main.main").fill());
        int[] ours = rgb(frames.get("JavaMain").fill());
        assertTrue(
                ours[0] > 200 && ours[1] > 180 && ours[2] < 100,
                "native: yellow, " + frames.get("JavaMain").fill());
    }

    @Test
    void namesAreEscapedAndLabelsFitTheirRectangles() throws Exception {
        String longName = "org/gargamel/some/very/long/package/name/that/goes/on/and/on/ClassWithALongName"
                + ".methodWithAnEvenLongerName";
        Map<String, Drawn> frames = draw(
                "a/B.<init>_[j];x&y \"quoted\" 'single' 897",
                "a/B.<init>_[j];" + longName + "_[j] 100",
                "a/B.<init>_[j];a/Narrow.frame_[j] 2");
        assertTrue(frames.containsKey("a/B.<init>"), frames.keySet().toString());
        assertTrue(
                frames.containsKey("x&y \"quoted\" 'single'"), frames.keySet().toString());
        for (Drawn frame : frames.values()) {
            assertTrue(
                    frame.label().length() * FlameGraph.CHAR_WIDTH <= frame.width(),
                    frame.label() + " overflows " + frame.width() + " px");
        }
        assertEquals("a/B.<init>", frames.get("a/B.<init>").label(), "a wide frame shows its whole name");
        String cut = frames.get(longName).label();
        assertTrue(
                cut.length() > 5
                        && cut.endsWith("..")
                        && "ClassWithALongName.methodWithAnEvenLongerName"
                                .startsWith(cut.substring(0, cut.length() - 2)),
                cut);
        assertEquals("", frames.get("a/Narrow.frame").label(), "no room for 3 characters: no label");
    }

    @Test
    void aLabelDropsTheJavaPackageBeforeCuttingTheName() {
        Frame java = new Frame("org/gargamel/node/apply/ApplyLoop.run", FrameKind.JAVA);
        assertEquals("org/gargamel/node/apply/ApplyLoop.run", FlameGraph.label(java, 1000));
        assertEquals("ApplyLoop.run", FlameGraph.label(java, 20.5 * FlameGraph.CHAR_WIDTH));
        assertEquals("Apply..", FlameGraph.label(java, 7.5 * FlameGraph.CHAR_WIDTH + 6));
        assertEquals("", FlameGraph.label(java, 4.5 * FlameGraph.CHAR_WIDTH + 6));
    }

    @Test
    void anEmptyProfileIsAValidDocumentWithoutFrames() throws Exception {
        assertEquals(Map.of(), draw());
    }

    /** Renders the lines, parses the SVG, and returns its frames by name. */
    private static Map<String, Drawn> draw(String... collapsedLines) throws Exception {
        String svg = FlameGraph.render(CollapsedStacks.parse(List.of(collapsedLines), "test"), "a <test> & more");
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document document =
                factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        assertEquals("svg", document.getDocumentElement().getLocalName());
        assertEquals("http://www.w3.org/2000/svg", document.getDocumentElement().getNamespaceURI());
        Map<String, Drawn> frames = new LinkedHashMap<>();
        NodeList groups = document.getElementsByTagNameNS("*", "g");
        for (int i = 0; i < groups.getLength(); i++) {
            Element group = (Element) groups.item(i);
            String title = group.getElementsByTagNameNS("*", "title").item(0).getTextContent();
            Element rect = (Element) group.getElementsByTagNameNS("*", "rect").item(0);
            NodeList texts = group.getElementsByTagNameNS("*", "text");
            Drawn drawn = new Drawn(
                    title,
                    Double.parseDouble(rect.getAttribute("x")),
                    Double.parseDouble(rect.getAttribute("y")),
                    Double.parseDouble(rect.getAttribute("width")),
                    rect.getAttribute("fill"),
                    texts.getLength() == 0 ? "" : texts.item(0).getTextContent());
            frames.put(drawn.name(), drawn);
        }
        return frames;
    }

    private static int[] rgb(String fill) {
        String[] parts = fill.substring("rgb(".length(), fill.length() - 1).split(",", -1);
        return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])};
    }
}
