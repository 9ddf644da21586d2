package dev.hourglass.node.catalog;

import dev.hourglass.api.HourglassException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The hosts and CIDR ranges HTTP callbacks may target ({@code HOURGLASS_CALLBACK_ALLOW}). A URL's
 * host passes when it equals an allowed host name, or when it is an IP literal inside an allowed
 * range. Host names are not resolved: a name passes only by name, so DNS cannot widen the list.
 */
public final class CallbackAllowList {
    private record Cidr(byte[] network, int prefix) {}

    private final List<String> hosts = new ArrayList<>();
    private final List<Cidr> ranges = new ArrayList<>();

    public CallbackAllowList(List<String> entries) {
        for (String raw : entries) {
            String entry = raw.trim().toLowerCase(Locale.ROOT);
            if (entry.isEmpty()) {
                continue;
            }
            int slash = entry.indexOf('/');
            if (slash > 0) {
                byte[] net = literal(entry.substring(0, slash));
                if (net == null) {
                    throw new IllegalArgumentException("not a CIDR range: " + raw);
                }
                ranges.add(new Cidr(net, Integer.parseInt(entry.substring(slash + 1))));
            } else if (literal(entry) != null) {
                byte[] address = literal(entry);
                ranges.add(new Cidr(address, address.length * 8));
            } else {
                hosts.add(entry);
            }
        }
    }

    /**
     * {@code url} if it is an absolute http(s) URL whose host is on this list; else a 400 naming
     * {@code field}. For everything Hourglass calls over HTTP: callbacks and alert webhooks.
     */
    public String requireHttpUrl(String field, String url) {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw HourglassException.invalid(field, field + " is not a valid URI");
        }
        if (!List.of("http", "https").contains(String.valueOf(uri.getScheme()).toLowerCase(Locale.ROOT))
                || uri.getHost() == null) {
            throw HourglassException.invalid(field, field + " must be an absolute http(s) URL");
        }
        if (!allows(uri)) {
            throw HourglassException.invalid(field, "host " + uri.getHost() + " is not on the callback allow-list");
        }
        return url;
    }

    public boolean allows(URI url) {
        String host = url.getHost();
        if (host == null) {
            return false;
        }
        host = host.toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (hosts.contains(host)) {
            return true;
        }
        byte[] address = literal(host);
        if (address == null) {
            return false;
        }
        for (Cidr c : ranges) {
            if (c.network().length == address.length && inRange(address, c)) {
                return true;
            }
        }
        return false;
    }

    private static boolean inRange(byte[] address, Cidr c) {
        int bits = c.prefix();
        for (int i = 0; i < address.length && bits > 0; i++, bits -= 8) {
            int mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
            if ((address[i] & mask) != (c.network()[i] & mask)) {
                return false;
            }
        }
        return true;
    }

    /** The bytes of an IPv4 or IPv6 literal; null for a host name (never resolved). */
    private static byte[] literal(String host) {
        boolean ipv4 = host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean ipv6 = host.contains(":") && host.matches("[0-9a-f:.]+");
        if (!ipv4 && !ipv6) {
            return null;
        }
        try {
            return InetAddress.getByName(host).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
