package dev.hourglass.node.core.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimesTest {
    private static final long NOW = 1_763_739_000_000L;

    @Test
    void addsLikePlusWhereTheSumFits() {
        assertThat(Times.plus(NOW, 1_500)).isEqualTo(NOW + 1_500);
        assertThat(Times.plus(NOW, -NOW)).isZero();
        assertThat(Times.plus(Long.MAX_VALUE, -1)).isEqualTo(Long.MAX_VALUE - 1);
        assertThat(Times.plus(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(-1);
    }

    @Test
    void saturatesInsteadOfWrappingIntoThePastOrTheFuture() {
        assertThat(Times.plus(NOW, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(Times.plus(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(Times.plus(Long.MAX_VALUE, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
        assertThat(Times.plus(-NOW, Long.MIN_VALUE)).isEqualTo(Long.MIN_VALUE);
        assertThat(Times.plus(Long.MIN_VALUE, -1)).isEqualTo(Long.MIN_VALUE);
    }

    /** Against exact arithmetic, over random pairs concentrated near the edges of a long. */
    @Test
    void agreesWithExactArithmeticClampedToALong() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 10_000; i++) {
            long a = i % 2 == 0 ? random.nextLong() : Long.MAX_VALUE - random.nextLong(1_000);
            long b = i % 3 == 0 ? random.nextLong() : random.nextLong(-1_000, 1_000) + (i % 5 == 0 ? 0 : a);
            long expected = java.math.BigInteger.valueOf(a)
                    .add(java.math.BigInteger.valueOf(b))
                    .max(java.math.BigInteger.valueOf(Long.MIN_VALUE))
                    .min(java.math.BigInteger.valueOf(Long.MAX_VALUE))
                    .longValueExact();
            assertThat(Times.plus(a, b)).as("%d + %d", a, b).isEqualTo(expected);
        }
    }
}
