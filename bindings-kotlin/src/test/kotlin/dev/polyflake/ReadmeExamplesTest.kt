package dev.polyflake

import java.nio.file.Files
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

/**
 * The READMEs' Kotlin examples, verbatim (scripts/readme_examples.py checks
 * that every Kotlin block of a README appears here), each followed by checks.
 */
class ReadmeExamplesTest {
    private fun <T> inStateDir(body: () -> T): T =
        withEnv(mapOf("POLYFLAKE_STATE_DIR" to Files.createTempDirectory("polyflake-readme").toString()), body)

    @Test
    fun rootReadme() {
        Generator(Layout.TWITTER, "datacenter_id" to 1L, "machine_id" to 7L).use { gen ->
            val id: Long = gen.nextId()
            val parts = Polyflake.decode(id, Layout.TWITTER)      // parts.time, parts["machine_id"]
        }
        // What the comment promises.
        val parts = Generator(Layout.TWITTER, "datacenter_id" to 1L, "machine_id" to 7L).use {
            Polyflake.decode(it.nextId(), Layout.TWITTER)
        }
        assertEquals(7L, parts["machine_id"])
        assertEquals(parts.timestampMs, parts.time.toEpochMilli())
    }

    @Test
    fun kotlinReadme() = inStateDir {
        Generator(Layout.TWITTER, "datacenter_id" to 1L, "machine_id" to 7L).use { gen ->
            val id: Long = gen.nextId()              // one direct-mapped JNA call
            val batch: LongArray = gen.nextIds(1000) // one crossing for the lot
            val parts = Polyflake.decode(id, Layout.TWITTER)
            println("${parts.time} machine=${parts["machine_id"]} seq=${parts.sequence}")
        }
        val fromEnv = Generator.fromEnv(Layout.SNOWFLAKE)  // identity per docs/identity.md
        val id = fromEnv.nextId()
        val text = Polyflake.formatId(id, "base58"); Polyflake.parseId(text, "base58")
        val raw: ByteArray = Polyflake.formatBytes(id); Polyflake.parseBytes(raw)   // the `bytes` encoding
        // What the comments promise.
        assertEquals(id, Polyflake.parseId(text, "base58"))
        assertEquals(id, Polyflake.parseBytes(raw))
        assertEquals(8, raw.size)
        fromEnv.close()
    }
}
