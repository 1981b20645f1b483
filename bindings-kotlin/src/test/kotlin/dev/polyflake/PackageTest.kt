package dev.polyflake

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import java.nio.file.Path
import javax.xml.parsers.DocumentBuilderFactory

class PackageTest {
    /** The framework integrations are artifacts of their own (integrations/): this jar depends on none. */
    @Test
    fun `the base artifact depends on the Kotlin runtime and JNA alone`() {
        val pom = Path.of(System.getProperty("polyflake.vectors")).parent.parent.resolve("bindings-kotlin/pom.xml")
        val doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile())
        val project = doc.documentElement
        // The project's own <dependencies> (not dependencyManagement's, not a profile's).
        val dependencies = (0 until project.childNodes.length).map { project.childNodes.item(it) }.single { it.nodeName == "dependencies" }
        val runtime = (0 until dependencies.childNodes.length).map { dependencies.childNodes.item(it) }
            .filter { it.nodeName == "dependency" }
            .map { dep ->
                fun text(name: String) = (0 until dep.childNodes.length).map { dep.childNodes.item(it) }.firstOrNull { it.nodeName == name }?.textContent
                "${text("groupId")}:${text("artifactId")}" to (text("scope") ?: "compile")
            }
            .filter { (_, scope) -> scope != "test" }
            .map { it.first }
        assertEquals(listOf("org.jetbrains.kotlin:kotlin-stdlib", "net.java.dev.jna:jna"), runtime)
    }

    @Test
    fun `ID keys by the contract's rule`() {
        // Written out from docs/contract.md's rule, not from the code under test.
        val keys = listOf("id", "ids", "user_id", "order_ids", "customerId", "orderIds", "parentID", "childIDs")
        val others = listOf("paid", "uuid", "Id", "_id", "identity", "width", "idx", "")
        assertEquals(keys.map { true }, keys.map(Polyflake::isIdKey))
        assertEquals(others.map { false }, others.map(Polyflake::isIdKey))
    }
}
