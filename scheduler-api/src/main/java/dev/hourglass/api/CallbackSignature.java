package dev.hourglass.api;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code Hourglass-Signature} header of HTTP callbacks (docs/api.md, "HTTP callback"):
 * {@code t=<epoch ms>,v1=<hex HMAC-SHA256 of "<t>.<body>">} keyed with the service's signing secret.
 * The node signs with it and the SDK verifies with it, so both sides share one implementation.
 */
public final class CallbackSignature {
    public static final String HEADER = "Hourglass-Signature";

    private CallbackSignature() {}

    public static String sign(String secret, long timestampMs, byte[] body) {
        return "t=" + timestampMs + ",v1=" + hex(hmac(secret, timestampMs, body));
    }

    /**
     * Verifies a header against the body, in constant time, and rejects timestamps further than
     * {@code toleranceMs} from {@code nowMs} (replay protection).
     */
    public static boolean verify(String secret, String header, byte[] body, long nowMs, long toleranceMs) {
        if (header == null || secret == null) {
            return false;
        }
        Long t = null;
        String v1 = null;
        for (String part : header.split(",")) {
            String p = part.trim();
            if (p.startsWith("t=")) {
                try {
                    t = Long.parseLong(p.substring(2));
                } catch (NumberFormatException e) {
                    return false;
                }
            } else if (p.startsWith("v1=")) {
                v1 = p.substring(3);
            }
        }
        if (t == null || v1 == null || Math.abs(nowMs - t) > toleranceMs) {
            return false;
        }
        byte[] expected = hex(hmac(secret, t, body)).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, v1.getBytes(StandardCharsets.US_ASCII));
    }

    /** A Mac per thread, re-keyed only when the secret changes: getInstance and init cost more than the MAC. */
    private static final ThreadLocal<KeyedMac> MACS = new ThreadLocal<>();

    private record KeyedMac(String secret, Mac mac) {}

    private static byte[] hmac(String secret, long timestampMs, byte[] body) {
        KeyedMac keyed = MACS.get();
        if (keyed == null || !keyed.secret().equals(secret)) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
                keyed = new KeyedMac(secret, mac);
                MACS.set(keyed);
            } catch (NoSuchAlgorithmException | InvalidKeyException e) {
                throw new IllegalStateException("HmacSHA256 is not available", e);
            }
        }
        Mac mac = keyed.mac();
        mac.update((timestampMs + ".").getBytes(StandardCharsets.US_ASCII));
        return mac.doFinal(body); // doFinal also resets the Mac for the next use
    }

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }
}
