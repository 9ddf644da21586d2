package dev.hourglass.node.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The BOM (hourglass-bom/pom.xml) has no parent, so that importing it brings Hourglass's versions
 * only: its own version must follow the build's, and it must name every client artifact.
 */
class HourglassBomTest {
    private static final Path ROOT = Path.of("..");

    @Test
    void theBomIsAtTheBuildsVersionAndNamesEveryClientArtifact() throws Exception {
        Document parent = read(ROOT.resolve("pom.xml"));
        Document bom = read(ROOT.resolve("hourglass-bom/pom.xml"));
        assertThat(text(bom.getDocumentElement(), "version"))
                .isEqualTo(text(parent.getDocumentElement(), "version"))
                .isEqualTo(System.getProperty("hourglass.build.version"));
        assertThat(bom.getElementsByTagName("parent").getLength())
                .as("no parent")
                .isZero();
        List<String> managed = new ArrayList<>();
        NodeList deps = bom.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            assertThat(text(d, "version")).isEqualTo("${project.version}");
            managed.add(text(d, "groupId") + ":" + text(d, "artifactId"));
        }
        assertThat(managed)
                .containsExactlyInAnyOrder(
                        "dev.hourglass:scheduler-api",
                        "dev.hourglass:callback-sdk",
                        "dev.hourglass:hourglass-spring-boot-starter");
        for (String metadata : List.of("url", "description")) {
            assertThat(text(bom.getDocumentElement(), metadata)).as(metadata).isNotBlank();
            assertThat(text(parent.getDocumentElement(), metadata)).as(metadata).isNotBlank();
        }
        assertThat(text(bom.getDocumentElement(), "url")).isEqualTo(text(parent.getDocumentElement(), "url"));
        Element parentScm = (Element) parent.getElementsByTagName("scm").item(0);
        Element bomScm = (Element) bom.getElementsByTagName("scm").item(0);
        for (String scm : List.of("url", "connection", "developerConnection")) {
            assertThat(text(bomScm, scm)).as("scm " + scm).isNotBlank().isEqualTo(text(parentScm, scm));
        }
        assertThat(Files.readString(ROOT.resolve("pom.xml"))).contains("<module>hourglass-bom</module>");
        assertThat(ROOT.resolve("LICENSE")).exists();
        assertThat(Files.readString(ROOT.resolve("LICENSE")))
                .contains("Apache License")
                .contains("Version 2.0");
    }

    private static Document read(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of {@code e}'s direct child {@code name}. */
    private static String text(Element e, String name) {
        NodeList children = e.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element c && c.getTagName().equals(name)) {
                return c.getTextContent().trim();
            }
        }
        return null;
    }
}
