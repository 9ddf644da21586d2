package dev.hourglass.node.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * docs/api.md stays in step with the OpenAPI document the node serves: every operation of the
 * document is described there as {@code `METHOD /path`}.
 */
class ApiReferenceTest {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "patch", "delete");

    @Test
    void everyOperationOfTheServedOpenApiDocumentIsInTheReference() throws Exception {
        JsonNode openapi;
        try (InputStream in = ApiReferenceTest.class.getResourceAsStream("/public/openapi.json")) {
            assertThat(in).as("the OpenAPI document the node serves").isNotNull();
            openapi = new ObjectMapper().readTree(in);
        }
        Path reference = Path.of(System.getProperty("user.dir"))
                .resolve("../docs/api.md")
                .normalize();
        String doc = Files.readString(reference);
        List<String> operations = new ArrayList<>();
        openapi.get("paths")
                .fields()
                .forEachRemaining(path -> path.getValue().fieldNames().forEachRemaining(method -> {
                    if (METHODS.contains(method)) {
                        operations.add(method.toUpperCase() + " " + path.getKey());
                    }
                }));
        assertThat(operations).hasSizeGreaterThan(20);
        List<String> missing =
                operations.stream().filter(op -> !doc.contains("`" + op + "`")).toList();
        assertThat(missing)
                .as("operations of openapi.json not described in docs/api.md")
                .isEmpty();
    }
}
