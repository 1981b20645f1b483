package example;

import dev.polyflake.Layout;
import dev.polyflake.Parts;
import dev.polyflake.Polyflake;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONObject;

/** The golden vectors through the installed jar, from Java: decode every
 *  compose case of a preset and every text encoding, both ways. */
public final class VectorsCheck {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        JSONArray compose = new JSONObject(Files.readString(dir.resolve("compose.json"))).getJSONArray("cases");
        int decoded = 0;
        for (int i = 0; i < compose.length(); i++) {
            JSONObject c = compose.getJSONObject(i);
            if (!Layout.getPRESETS().contains(c.getString("layout"))) continue;
            Layout layout = Layout.preset(c.getString("layout"));
            long id = Long.parseUnsignedLong(c.getString("id"));
            Parts parts = Polyflake.decode(id, layout);
            check(parts.getTimestampMs() == Long.parseLong(c.getString("timestamp_ms")), "timestamp", c);
            check(parts.getSequence() == Long.parseLong(c.getString("sequence")), "sequence", c);
            JSONObject nodes = c.getJSONObject("nodes");
            for (String field : nodes.keySet()) {
                check(parts.get(field) == Long.parseLong(nodes.getString(field)), field, c);
            }
            check(Polyflake.compose(layout, parts.getTimestampMs(), parts.getSequence(), parts.getNodes()) == id, "compose", c);
            decoded++;
        }
        JSONObject encodings = new JSONObject(Files.readString(dir.resolve("encodings.json")));
        JSONArray cases = encodings.getJSONArray("cases");
        int encoded = 0;
        for (int i = 0; i < cases.length(); i++) {
            JSONObject c = cases.getJSONObject(i);
            long id = Long.parseUnsignedLong(c.getString("id"));
            for (String name : c.keySet()) {
                if (name.equals("id") || name.equals("bytes")) continue;
                check(Polyflake.formatId(id, name).equals(c.getString(name)), name, c);
                check(Polyflake.parseId(c.getString(name), name) == id, name, c);
                encoded++;
            }
        }
        check(decoded > 10 && encoded > 50, "vectors found", new JSONObject(Map.of("decoded", decoded, "encoded", encoded)));
        System.out.println("jar: " + decoded + " decode vectors, " + encoded + " encodings");
    }

    private static void check(boolean ok, String what, JSONObject c) {
        if (!ok) throw new AssertionError(what + " differs for " + c);
    }
}
