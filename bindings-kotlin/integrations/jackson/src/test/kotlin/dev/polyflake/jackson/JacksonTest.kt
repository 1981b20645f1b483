package dev.polyflake.jackson

import com.fasterxml.jackson.databind.JsonMappingException
import com.fasterxml.jackson.databind.ObjectMapper
import dev.polyflake.PolyflakeException
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/** A DTO as a user writes one: an annotated reference and a plain count. */
class Line {
    @JsonSnowflakeId
    var productId: Long = 0

    var quantity: Long = 0
}

/** Lists of IDs and nullable IDs, for PolyflakeModule.everyLong(). */
class Batch {
    var ids: List<Long> = emptyList()
    var parent: Long? = null
}

/** An entity-like class: IDs under ID keys, and integers that are not IDs. */
class Invoice {
    var id: Long = 0
    var customerId: Long? = null
    var lineIds: List<Long> = emptyList()
    var tagIds: LongArray = LongArray(0)
    var paid: Long = 0
    var total: Long = 0
}

class JacksonTest {
    private val plain = ObjectMapper()
    private val mapper = ObjectMapper().registerModule(PolyflakeModule())

    // Unsigned decimal text of each ID, worked out without the code under test.
    private val ids = listOf(
        0L to "0",
        1L to "1",
        (1L shl 53) + 1 to "9007199254740993",
        Long.MAX_VALUE to "9223372036854775807",
        Long.MIN_VALUE to "9223372036854775808",
        -1L to "18446744073709551615",
    )

    private fun line(id: Long) = Line().apply { productId = id; quantity = 3 }

    @Test
    fun `an annotated ID is written as the string of its unsigned value, other numbers as numbers`() {
        for ((id, text) in ids) {
            for (m in listOf(plain, mapper)) {
                val tree = plain.readTree(m.writeValueAsString(line(id)))
                assertTrue(tree["productId"].isTextual)
                assertEquals(text, tree["productId"].asText())
                assertTrue(tree["quantity"].isNumber, "a Long that is not an ID stays a number")
            }
        }
    }

    @Test
    fun `an ID is read from a string or a JSON integer, every bit intact`() {
        for ((id, text) in ids) {
            assertEquals(id, mapper.readValue("""{"productId": "$text"}""", Line::class.java).productId)
            assertEquals(id, mapper.readValue("""{"productId": $text}""", Line::class.java).productId)
        }
    }

    @Test
    fun `anything else is refused, never read as another value`() {
        val bad = listOf(
            "\"-1\"", "\"1.5\"", "\"1e3\"", "\"\"", "\" 1\"", "\"+1\"", "\"abc\"", "\"18446744073709551616\"",
            "-1", "1.5", "1e3", "18446744073709551616", "true", "[1]", "{}",
        )
        for (value in bad) {
            val e = assertThrows(JsonMappingException::class.java, { mapper.readValue("""{"productId": $value}""", Line::class.java) }, value)
            assertTrue(e.message!!.isNotEmpty())
        }
        // Text the core refuses carries the core's coded error.
        val e = assertThrows(JsonMappingException::class.java) { mapper.readValue("""{"productId": "12x"}""", Line::class.java) }
        val cause = e.cause
        assertTrue(cause is PolyflakeException, "the cause is the core's error: $cause")
        assertTrue((cause as PolyflakeException).code in e.message!!)
    }

    @Test
    fun `everyLong writes every Long as a string, in lists and when null`() {
        val every = ObjectMapper().registerModule(PolyflakeModule.everyLong())
        val batch = Batch().apply { ids = listOf(-1L, 5L); parent = (1L shl 60) + 7 }
        val tree = plain.readTree(every.writeValueAsString(batch))
        assertEquals(listOf("18446744073709551615", "5"), tree["ids"].map { it.asText() })
        assertTrue(tree["ids"].all { it.isTextual })
        assertEquals(((1L shl 60) + 7).toString(), tree["parent"].asText())
        assertTrue(tree["parent"].isTextual)
        val back = every.readValue("""{"ids": ["18446744073709551615", 5], "parent": null}""", Batch::class.java)
        assertEquals(listOf(-1L, 5L), back.ids)
        assertNull(back.parent)
        // Without the module's everyLong, the same Longs are numbers.
        assertTrue(plain.readTree(mapper.writeValueAsString(batch))["parent"].isNumber)
    }

    @Test
    fun `Longs under ID keys are IDs by the contract's rule, other Longs stay numbers`() {
        val invoice = Invoice().apply {
            id = -1L
            customerId = (1L shl 60) + 3
            lineIds = listOf(1L, Long.MIN_VALUE)
            tagIds = longArrayOf(7L, -2L)
            paid = 1
            total = 1L shl 60
        }
        val tree = plain.readTree(mapper.writeValueAsString(invoice))
        assertEquals("18446744073709551615", tree["id"].asText())
        assertTrue(tree["id"].isTextual)
        assertEquals("1152921504606846979", tree["customerId"].asText())
        assertTrue(tree["customerId"].isTextual)
        assertEquals(listOf("1", "9223372036854775808"), tree["lineIds"].map { it.asText() })
        assertTrue(tree["lineIds"].all { it.isTextual })
        assertEquals(listOf("7", "18446744073709551614"), tree["tagIds"].map { it.asText() })
        assertTrue(tree["tagIds"].all { it.isTextual })
        assertTrue(tree["paid"].isNumber, "paid is not an ID key")
        assertTrue(tree["total"].isNumber)
        // Read back from strings, and from JSON integers too.
        val text = """{"id": "18446744073709551615", "customerId": 1152921504606846979, "lineIds": ["1", 9223372036854775808],
            "tagIds": ["7", "18446744073709551614"], "paid": 1, "total": 5}"""
        val back = mapper.readValue(text, Invoice::class.java)
        assertEquals(-1L, back.id)
        assertEquals((1L shl 60) + 3, back.customerId)
        assertEquals(listOf(1L, Long.MIN_VALUE), back.lineIds)
        assertEquals(listOf(7L, -2L), back.tagIds.toList())
        for (bad in listOf(""""id": "-1"""", """"lineIds": ["1", "x"]""", """"tagIds": [null]""", """"customerId": 1.5""")) {
            assertThrows(JsonMappingException::class.java, { mapper.readValue("{$bad}", Invoice::class.java) }, bad)
        }
        // Without the module every one of them is a number.
        assertTrue(plain.readTree(plain.writeValueAsString(invoice))["customerId"].isNumber)
    }
}
