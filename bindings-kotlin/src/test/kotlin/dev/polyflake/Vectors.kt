package dev.polyflake

import org.json.JSONArray
import org.json.JSONObject
import java.io.File

/** The golden vectors every language runs; IDs are decimal strings. */
object Vectors {
    private val dir = File(System.getProperty("polyflake.vectors") ?: "../tests/vectors")

    fun load(name: String): JSONObject = JSONObject(File(dir, name).readText())

    /** An unsigned decimal string as the bits of a Long. */
    fun bits(text: String): Long = java.lang.Long.parseUnsignedLong(text)

    fun spec(spec: JSONObject): Layout = Layout.custom(
        epochMs = spec.getString("epoch_ms").toLong(),
        timeBits = spec.getInt("time_bits"),
        nodes = spec.getJSONArray("nodes").objects().map { it.getString("name") to it.getInt("bits") },
        sequenceBits = spec.getInt("sequence_bits"),
        tickMs = spec.getLong("tick_ms"),
        sequenceAboveNodes = spec.getBoolean("sequence_above_nodes"),
    )

    fun layout(name: String): Layout =
        if (name in Layout.PRESETS) Layout.preset(name) else spec(load("layouts.json").getJSONObject("custom").getJSONObject(name))

    fun nodes(obj: JSONObject): Map<String, Long> = obj.keySet().associateWith { bits(obj.getString(it)) }
}

fun JSONArray.objects(): List<JSONObject> = (0 until length()).map { getJSONObject(it) }
