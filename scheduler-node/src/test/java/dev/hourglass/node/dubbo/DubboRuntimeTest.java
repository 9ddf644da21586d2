package dev.hourglass.node.dubbo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DubboRuntimeTest {
    @Test
    void aZooKeeperConnectStringBecomesARegistryUrlWithBackups() {
        assertThat(DubboRuntime.zookeeperRegistry("127.0.0.1:2181")).isEqualTo("zookeeper://127.0.0.1:2181");
        assertThat(DubboRuntime.zookeeperRegistry("zk1:2181, zk2:2181,zk3:2182"))
                .isEqualTo("zookeeper://zk1:2181?backup=zk2:2181,zk3:2182");
        assertThat(DubboRuntime.zookeeperRegistry("zk1:2181,zk2:2181/hourglass"))
                .as("a chroot is not Dubbo's root")
                .isEqualTo("zookeeper://zk1:2181?backup=zk2:2181");
    }
}
