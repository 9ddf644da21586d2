package dev.hourglass.node.store.h2;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.h2.mvstore.DataUtils;

/**
 * Lets the standalone H2 database (2.5.252, file format 3) find, after a kill -9, every commit it
 * had written: run it on the {@code .mv.db} file before H2 opens it.
 *
 * <p><b>The defect it works around.</b> With {@code WRITE_DELAY=0} every commit writes a chunk
 * to the file before it returns, so after a kill -9 the file holds every acknowledged commit. But
 * H2 does not always find the newest chunks when it opens the file again. It starts from the
 * chunk named in the file header and follows each chunk's {@code next} field, a guess of where
 * the following chunk will be written; when a guess was wrong H2 rewrites the header during the
 * write of the chunk that broke the chain — naming the chunk <em>before</em> it, whose wrong
 * {@code next} leads nowhere. Every chunk after it stays unreachable until the header is written
 * again (at the latest 20 versions later). Worked example, from a node killed right after its
 * 300th acknowledged submit:
 *
 * <pre>
 *   header: chunk a9e at block 5156
 *   chunk a9e  block 5156  next 8357   (guessed the end of the file)
 *   chunk a9f  block 5165  next 5170   (written into a hole instead: the header write named a9e)
 *   chunk aa0  block 5170  next 5176
 *   ...
 *   chunk aad  block 5274              (the 300th submit's commit)
 * </pre>
 *
 * H2 opened the file at chunk a9e: the last 15 acknowledged jobs were gone, although their chunks
 * were intact in the file.
 *
 * <p><b>The repair.</b> After an unclean stop (the header has no {@code clean} mark) this scans the
 * file for chunks whose header and checksummed footer agree, and walks from the header's chunk to
 * its successors: the chunk with the next id, a higher version and a write time no earlier (within
 * one run H2 gives each write the next free id and a higher version; the time check skips stale
 * chunks of an older history that a rollback left in free space, which reuse the same ids but were
 * written earlier). Where no chunk or more than one could follow, the walk stops there: the
 * repair only ever names a chunk it has no doubt about. If the walk got further than the header's chunk, both header copies are rewritten to
 * name the last chunk reached, still without the clean mark. H2 then opens as after any crash and
 * validates that chunk itself (its footer, and that every chunk it still uses is present); if it
 * does not accept it, H2 falls back to its own search. The repair never changes a chunk.
 *
 * <p><b>Contract.</b> Call it before H2 opens the file, never while H2 has it open: it takes the
 * same file lock as H2 and does nothing when another process holds it (that H2 will then refuse to
 * open the file, as always). A file of an unknown format, a header that does not parse or a header
 * chunk that cannot be found is left alone ({@link Kind#SKIPPED}). It reads the whole file, but
 * only after an unclean stop. Not thread-safe against itself on the same file; the node calls it
 * once, at start.
 */
public final class H2CrashRepair {
    static final int BLOCK = 4096;
    private static final int HEADER_BYTES = 2 * BLOCK;
    private static final int FOOTER_BYTES = 128;
    private static final int MAX_CHUNK_HEADER = 1024;
    private static final int CHUNK_ID_MASK = 0x3FF_FFFF; // H2's Chunk.MAX_ID: ids wrap around
    private static final int SCAN_BUFFER = 1 << 20;

    private H2CrashRepair() {}

    public enum Kind {
        /** No file yet. */
        NO_FILE,
        /** Closed cleanly: H2 trusts its header, nothing to do. */
        CLEAN,
        /** Unclean stop, but no chunk was written after the header's: nothing to do. */
        UP_TO_DATE,
        /** Unclean stop: the header now names the newest chunk. */
        REPAIRED,
        /** Left to H2 as it is: see {@link Outcome#reason()}. */
        SKIPPED
    }

    /** What was found and done; versions are H2 store versions (-1: unknown). */
    public record Outcome(Kind kind, long headerVersion, long newestVersion, String reason) {
        static Outcome of(Kind kind) {
            return new Outcome(kind, -1, -1, "");
        }

        static Outcome skipped(String reason) {
            return new Outcome(Kind.SKIPPED, -1, -1, reason);
        }
    }

    /** A chunk whose header and footer agree: where it is, and what H2 guessed would follow it. */
    record Chunk(int id, long block, int len, long version, long time, long next) {}

    /** The header's chunk and the chunks written after it, in order (empty when none). */
    record Tail(Map<String, String> header, Chunk headerChunk, List<Chunk> successors) {}

    /**
     * Repairs {@code mvDbFile} as described above and says what it did. I/O errors propagate:
     * a file the node cannot read is one H2 could not open either.
     */
    public static Outcome repair(Path mvDbFile) {
        if (!Files.exists(mvDbFile)) {
            return Outcome.of(Kind.NO_FILE);
        }
        try (FileChannel channel = FileChannel.open(mvDbFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldInThisJvm) {
                lock = null;
            }
            if (lock == null) {
                return Outcome.skipped("the file is locked: H2 has it open");
            }
            try {
                return repair(channel);
            } finally {
                lock.release();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("repairing the H2 file " + mvDbFile, e);
        }
    }

    private static Outcome repair(FileChannel channel) throws IOException {
        Map<String, String> header = readHeader(channel);
        if (header == null) {
            return Outcome.skipped("no readable file header");
        }
        if (header.containsKey("clean")) {
            return Outcome.of(Kind.CLEAN);
        }
        Tail tail = tail(channel, header);
        if (tail == null) {
            return Outcome.skipped(
                    "format " + header.get("format") + " or its header chunk is not one this repair knows");
        }
        long headerVersion = tail.headerChunk().version();
        if (tail.successors().isEmpty()) {
            return new Outcome(Kind.UP_TO_DATE, headerVersion, headerVersion, "");
        }
        Chunk newest = tail.successors().get(tail.successors().size() - 1);
        writeHeader(channel, header, newest);
        return new Outcome(Kind.REPAIRED, headerVersion, newest.version(), "");
    }

    /** The header's chunk and its successors; null when the header is not of the known format. */
    static Tail tail(FileChannel channel, Map<String, String> header) throws IOException {
        if (!"3".equals(header.get("format")) || !"1000".equals(header.get("blockSize"))) {
            return null;
        }
        Map<Integer, List<Chunk>> byId = new HashMap<>();
        for (Chunk c : scan(channel)) {
            byId.computeIfAbsent(c.id(), k -> new ArrayList<>()).add(c);
        }
        int headerId;
        long headerBlock;
        try {
            headerId = Integer.parseInt(header.get("chunk"), 16);
            headerBlock = Long.parseLong(header.get("block"), 16);
        } catch (RuntimeException e) {
            return null;
        }
        Chunk at = byId.getOrDefault(headerId, List.of()).stream()
                .filter(c -> c.block() == headerBlock)
                .findFirst()
                .orElse(null);
        if (at == null) {
            return null;
        }
        List<Chunk> successors = new ArrayList<>();
        Chunk current = at;
        for (int guard = byId.size(); guard > 0; guard--) {
            Chunk previous = current;
            List<Chunk> candidates = byId.getOrDefault((previous.id() + 1) & CHUNK_ID_MASK, List.of()).stream()
                    .filter(c -> c.version() > previous.version() && c.time() >= previous.time())
                    .toList();
            if (candidates.size() != 1) {
                break; // none, or two that could both follow: stop here and leave the rest to H2
            }
            Chunk next = candidates.get(0);
            successors.add(next);
            current = next;
        }
        return new Tail(header, at, successors);
    }

    /** The file header (either copy whose checksum holds, the newer one if both do), or null. */
    static Map<String, String> readHeader(FileChannel channel) throws IOException {
        if (channel.size() < HEADER_BYTES) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES);
        readFully(channel, buffer, 0);
        Map<String, String> first = checksummed(buffer.array(), 0, BLOCK);
        Map<String, String> second = checksummed(buffer.array(), BLOCK, BLOCK);
        if (first == null || second == null) {
            return first == null ? second : first;
        }
        return hexOr(second.get("version"), -1) > hexOr(first.get("version"), -1) ? second : first;
    }

    /** Every chunk in the file whose header parses and whose footer names the same chunk. */
    static List<Chunk> scan(FileChannel channel) throws IOException {
        long size = channel.size();
        List<Chunk> chunks = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.allocate(SCAN_BUFFER);
        for (long start = HEADER_BYTES; start < size; start += SCAN_BUFFER) {
            buffer.clear();
            int read = readFully(channel, buffer, start);
            byte[] bytes = buffer.array();
            for (int offset = 0; offset < read; offset += BLOCK) {
                Chunk c = chunkAt(channel, size, bytes, offset, Math.min(read, offset + MAX_CHUNK_HEADER), start);
                if (c != null) {
                    chunks.add(c);
                }
            }
        }
        return chunks;
    }

    private static Chunk chunkAt(FileChannel channel, long size, byte[] bytes, int offset, int limit, long start)
            throws IOException {
        if (!startsWith(bytes, offset, limit, "chunk:")) {
            return null;
        }
        int end = offset;
        while (end < limit && bytes[end] != '\n') {
            end++;
        }
        if (end >= limit) {
            return null; // no line end: page data that happens to start with the same text
        }
        Map<String, String> fields;
        try {
            fields = DataUtils.parseMap(new String(bytes, offset, end - offset, StandardCharsets.ISO_8859_1).trim());
        } catch (RuntimeException notAChunkHeader) {
            return null;
        }
        long id = hexOr(fields.get("chunk"), -1);
        long len = hexOr(fields.get("len"), -1);
        long version = hexOr(fields.get("version"), -1);
        long time = hexOr(fields.get("time"), -1);
        if (id < 0 || len <= 0 || version < 0 || time < 0) {
            return null;
        }
        long block = (start + offset) / BLOCK;
        if (len > size / BLOCK - block) {
            return null; // runs past the end of the file (or is text in a row that looks like a chunk)
        }
        long footerEnd = (block + len) * BLOCK;
        ByteBuffer footerBuffer = ByteBuffer.allocate(FOOTER_BYTES);
        readFully(channel, footerBuffer, footerEnd - FOOTER_BYTES);
        Map<String, String> footer = checksummed(footerBuffer.array(), 0, FOOTER_BYTES);
        if (footer == null
                || hexOr(footer.get("chunk"), -2) != id
                || hexOr(footer.get("len"), -2) != len
                || hexOr(footer.get("version"), -2) != version) {
            return null; // torn, or a header over an older chunk's space
        }
        return new Chunk((int) id, block, (int) len, version, time, hexOr(fields.get("next"), 0));
    }

    /** Both header copies, naming {@code newest}; the other fields as they were; no clean mark. */
    private static void writeHeader(FileChannel channel, Map<String, String> header, Chunk newest) throws IOException {
        Map<String, String> fields = new TreeMap<>(header);
        fields.remove("fletcher");
        fields.remove("clean");
        fields.put("block", Long.toHexString(newest.block()));
        fields.put("chunk", Integer.toHexString(newest.id()));
        fields.put("version", Long.toHexString(newest.version()));
        StringBuilder text = new StringBuilder();
        fields.forEach((k, v) ->
                text.append(text.length() == 0 ? "" : ",").append(k).append(':').append(v));
        byte[] body = text.toString().getBytes(StandardCharsets.ISO_8859_1);
        text.append(",fletcher:").append(String.format("%08x", DataUtils.getFletcher32(body, 0, body.length)));
        byte[] line = (text + "\n").getBytes(StandardCharsets.ISO_8859_1);
        if (line.length > BLOCK) {
            throw new IllegalStateException("H2 file header too long: " + text);
        }
        ByteBuffer buffer = ByteBuffer.allocate(HEADER_BYTES);
        buffer.put(line).position(BLOCK);
        buffer.put(line).rewind();
        while (buffer.hasRemaining()) {
            channel.write(buffer, buffer.position());
        }
        channel.force(true);
    }

    /**
     * H2's "key:value,...,fletcher:xxxxxxxx" line at {@code offset}: its fields, or null when the
     * checksum (Fletcher-32 over the text before {@code ,fletcher}) does not hold.
     */
    static Map<String, String> checksummed(byte[] bytes, int offset, int length) {
        int end = offset;
        while (end < offset + length && bytes[end] != '\n' && bytes[end] != 0) {
            end++;
        }
        String line = new String(bytes, offset, end - offset, StandardCharsets.ISO_8859_1).trim();
        int mark = line.lastIndexOf(",fletcher:");
        if (mark < 0) {
            return null;
        }
        byte[] body = line.substring(0, mark).getBytes(StandardCharsets.ISO_8859_1);
        try {
            if ((int) Long.parseLong(line.substring(mark + ",fletcher:".length()), 16)
                    != DataUtils.getFletcher32(body, 0, body.length)) {
                return null;
            }
            return DataUtils.parseMap(line.substring(0, mark));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean startsWith(byte[] bytes, int offset, int limit, String prefix) {
        if (offset + prefix.length() > limit) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (bytes[offset + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static long hexOr(String hex, long otherwise) {
        if (hex == null) {
            return otherwise;
        }
        try {
            return Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static int readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        int total = 0;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position + total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }
}
