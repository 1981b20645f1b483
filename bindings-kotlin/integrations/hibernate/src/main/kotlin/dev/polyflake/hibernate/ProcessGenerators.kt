package dev.polyflake.hibernate

import dev.polyflake.Generator
import dev.polyflake.Layout
import java.util.concurrent.ConcurrentHashMap

/**
 * The process's generators, one per layout: a worker identity belongs to one process, and
 * every key of a layout must come from its one generator (a generator per entity class or per
 * call would issue one node value many times).
 *
 * The first key of a layout makes its generator with [Generator.fromEnv] (the identity from
 * the environment, else a local lease; claimed at its first ID). To lease from etcd or to use
 * a custom layout, hand the process's generator over with [use] before the first key.
 */
object ProcessGenerators {
    private val generators = ConcurrentHashMap<String, Generator>()

    /** The generator keys of [layout] (a preset's name, or one given to [use]) come from. */
    @JvmStatic
    fun forLayout(layout: String): Generator = generators.computeIfAbsent(layout) { Generator.fromEnv(Layout.preset(it)) }

    /**
     * Keys of [layout] come from [generator]. Refused with [IllegalStateException] once another
     * generator has been made or given for that layout: two generators in one process would
     * hold two identities for one stream of keys.
     */
    @JvmStatic
    fun use(layout: String, generator: Generator) {
        val before = generators.putIfAbsent(layout, generator)
        check(before == null || before === generator) {
            "the process already takes its $layout keys from another polyflake Generator: give yours " +
                "to ProcessGenerators.use before the first key is made"
        }
    }
}
