//! The README's main job: mint IDs, take one apart, move it between encodings.

use polyflake::{Encoding, Generator, Layout, SegmentKind};

fn main() -> polyflake::Result<()> {
    let layout = Layout::twitter();
    let generator = Generator::builder(layout.clone())
        .node("datacenter_id", 3)
        .node("machine_id", 17)
        .build()?;

    let ids = generator.next_ids(3)?;
    println!(
        "three IDs from datacenter 3, machine 17 ({} layout):",
        layout.name()
    );
    for id in &ids {
        println!("  {id}");
    }

    let id = ids[0];
    let parts = layout.decode(id)?;
    println!("\n{id} decoded:");
    println!("  timestamp_ms  {}", parts.timestamp_ms);
    for (name, value) in parts.fields(&layout) {
        println!("  {name:<13} {value}");
    }
    println!("  sequence      {}", parts.sequence);

    println!("\nits 64 bits:");
    for segment in layout.explain(id)? {
        let label = match segment.kind {
            SegmentKind::Unused => "unused".to_owned(),
            _ => segment.name.clone(),
        };
        println!(
            "  {:>2}..{:<2} {:<14} {:>42}  = {}",
            segment.msb,
            segment.lsb,
            label,
            segment.bits(),
            segment.value
        );
    }

    println!("\nencodings:");
    for encoding in Encoding::ALL.into_iter().filter(|e| !e.is_binary()) {
        let text = encoding.format(id);
        assert_eq!(encoding.parse(&text)?, id);
        println!("  {:<12} {text}", encoding.name());
    }
    let back = layout.compose(parts.timestamp_ms, parts.sequence, parts.nodes())?;
    assert_eq!(back, id);
    println!("\ncompose(decode(id)) == id: {}", back == id);
    Ok(())
}
