package dev.hourglass.node.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class CallbackAllowListTest {
    private final CallbackAllowList list =
            new CallbackAllowList(List.of("127.0.0.1", "localhost", "10.8.0.0/16", "Hooks.Example.com", "::1"));

    @Test
    void hostsPassByNameAndAddressesByRange() {
        assertThat(list.allows(URI.create("http://127.0.0.1:8080/cb"))).isTrue();
        assertThat(list.allows(URI.create("http://localhost/cb"))).isTrue();
        assertThat(list.allows(URI.create("https://hooks.example.com/x"))).isTrue();
        assertThat(list.allows(URI.create("http://10.8.200.1/cb"))).isTrue();
        assertThat(list.allows(URI.create("http://[::1]:9000/cb"))).isTrue();
    }

    @Test
    void everythingElseIsRefused() {
        assertThat(list.allows(URI.create("http://10.9.0.1/cb"))).isFalse();
        assertThat(list.allows(URI.create("http://127.0.0.2/cb"))).isFalse();
        assertThat(list.allows(URI.create("http://evil.example.com/cb"))).isFalse();
        assertThat(list.allows(URI.create("http://hooks.example.com.evil.net/cb")))
                .isFalse();
        assertThat(list.allows(URI.create("/relative"))).isFalse();
    }
}
