//! How a tree is written in the model file, and read back fast.
//!
//! Format 5 and earlier wrote a tree as bincode writes a `Vec<TreeNode>`:
//! the node count (a varint), then each node's five fields. Read through
//! serde, every field is a visit of its own: 13 M of the 31 M instructions
//! a one-page `extract` process spent. Format 6 writes [`NODES_AS_BYTES`]
//! where the count was, then all the tree's nodes as one byte string
//! ([`encode_nodes`]) that [`decode_nodes`] reads in one tight loop (3.4 M
//! instructions for the shipped model's trees). No old count can equal the
//! marker (the body limit refuses a file that large first), so one reader
//! takes both layouts and older files load unchanged.
//!
//! By hand because bincode has no bulk path for a slice of structs: its
//! serde decoder visits field by field, and its own `Decode` derive would
//! change the layout of every type around the trees.

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Tree, TreeNode};

/// Written where format 5 wrote the node count: the nodes follow as bytes.
pub const NODES_AS_BYTES: u64 = u64::MAX;

/// The fewest bytes a node takes (three one-byte varints, two floats).
const MIN_NODE_BYTES: usize = 3 + 4 + 4;

/// Appends `v` as an unsigned LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The nodes as bytes: per node the feature plus one (a leaf's
/// [`LEAF`](super::LEAF) wraps to 0, one byte instead of five), the
/// threshold's bits (four bytes, little-endian), the left and right child
/// and the value's bits; the integers as LEB128 varints.
pub fn encode_nodes(nodes: &[TreeNode]) -> Vec<u8> {
    let mut out = Vec::with_capacity(nodes.len() * 12);
    for n in nodes {
        put_varint(&mut out, n.feature.wrapping_add(1));
        out.extend_from_slice(&n.threshold.to_bits().to_le_bytes());
        put_varint(&mut out, n.left);
        put_varint(&mut out, n.right);
        out.extend_from_slice(&n.value.to_bits().to_le_bytes());
    }
    out
}

/// Reads [`encode_nodes`]'s bytes back; `None` when they are cut short,
/// hold an overlong varint, or leave bytes over.
pub fn decode_nodes(bytes: &[u8]) -> Option<Vec<TreeNode>> {
    let mut at = 0usize;
    let varint = |at: &mut usize| -> Option<u32> {
        // Most integers are one byte: a child index under 128, a leaf.
        let first = *bytes.get(*at)?;
        if first < 0x80 {
            *at += 1;
            return Some(u32::from(first));
        }
        let mut v = 0u32;
        for shift in [0, 7, 14, 21, 28] {
            let b = *bytes.get(*at)?;
            *at += 1;
            if shift == 28 && b > 0x0f {
                return None;
            }
            v |= u32::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    };
    let float = |at: &mut usize| -> Option<f32> {
        let b: [u8; 4] = bytes.get(*at..*at + 4)?.try_into().ok()?;
        *at += 4;
        Some(f32::from_bits(u32::from_le_bytes(b)))
    };
    let mut nodes = Vec::with_capacity(bytes.len() / MIN_NODE_BYTES);
    while at < bytes.len() {
        nodes.push(TreeNode {
            feature: varint(&mut at)?.wrapping_sub(1),
            threshold: float(&mut at)?,
            left: varint(&mut at)?,
            right: varint(&mut at)?,
            value: float(&mut at)?,
        });
    }
    Some(nodes)
}

/// Serialises a byte string as bytes (serde writes a `&[u8]` as a
/// sequence of numbers otherwise).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

impl Serialize for Tree {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(2)?;
        t.serialize_element(&NODES_AS_BYTES)?;
        t.serialize_element(&Bytes(&encode_nodes(&self.nodes)))?;
        t.end()
    }
}

/// Reads the nodes' byte string, borrowed where the format allows.
struct NodeBytes(Vec<TreeNode>);

impl<'de> Deserialize<'de> for NodeBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = NodeBytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tree's nodes as bytes")
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<NodeBytes, E> {
                decode_nodes(v)
                    .map(NodeBytes)
                    .ok_or_else(|| E::custom("a tree's node bytes are damaged"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<NodeBytes, A::Error> {
                // Self-describing formats may write bytes as numbers.
                let mut bytes = Vec::new();
                while let Some(b) = seq.next_element::<u8>()? {
                    bytes.push(b);
                }
                self.visit_bytes(&bytes)
            }
        }
        d.deserialize_bytes(V)
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Tree;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a tree: its nodes as bytes, or their count and the nodes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
                let first: u64 = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                if first == NODES_AS_BYTES {
                    let NodeBytes(nodes) = seq
                        .next_element()?
                        .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                    return Ok(Tree { nodes });
                }
                // Format 5 and earlier: the count, then the nodes. The count
                // is read from the file: reserve little, grow as read.
                let count = usize::try_from(first).map_err(de::Error::custom)?;
                let mut nodes = Vec::with_capacity(count.min(1 << 12));
                for i in 0..count {
                    nodes.push(
                        seq.next_element::<TreeNode>()?
                            .ok_or_else(|| de::Error::invalid_length(i + 1, &self))?,
                    );
                }
                Ok(Tree { nodes })
            }
        }
        // Bincode writes a tuple's elements with no count of their own, so
        // this reads the old layout's count and nodes as well as the new
        // marker and bytes; the element limit is the decoder's to enforce.
        d.deserialize_tuple(usize::MAX, V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gbdt::LEAF;

    fn tree() -> Tree {
        let leaf = |value: f32| TreeNode {
            feature: LEAF,
            threshold: 0.0,
            left: 0,
            right: 0,
            value,
        };
        Tree {
            nodes: vec![
                TreeNode {
                    feature: 300,
                    threshold: -1.5e-7,
                    left: 1,
                    right: 2,
                    value: 0.0,
                },
                leaf(0.25),
                leaf(f32::MIN_POSITIVE),
            ],
        }
    }

    #[test]
    fn trees_round_trip_and_the_old_layout_still_reads() {
        let config = bincode::config::standard();
        let t = tree();
        let new = bincode::serde::encode_to_vec(&t, config).unwrap();
        let (back, used): (Tree, usize) = bincode::serde::decode_from_slice(&new, config).unwrap();
        assert_eq!((back, used), (t.clone(), new.len()));
        // Format 5 wrote the nodes as a `Vec<TreeNode>`.
        let old = bincode::serde::encode_to_vec(&t.nodes, config).unwrap();
        let (back, used): (Tree, usize) = bincode::serde::decode_from_slice(&old, config).unwrap();
        assert_eq!((back, used), (t, old.len()));
    }

    #[test]
    fn damaged_node_bytes_are_refused() {
        let bytes = encode_nodes(&tree().nodes);
        assert_eq!(decode_nodes(&bytes), Some(tree().nodes));
        let nodes = tree().nodes;
        for cut in 1..bytes.len() {
            // Cut between two nodes, the bytes are the nodes before; cut
            // inside one, they are damaged.
            let whole = (1..nodes.len()).find(|&k| encode_nodes(&nodes[..k]).len() == cut);
            let expected = whole.map(|k| nodes[..k].to_vec());
            assert_eq!(decode_nodes(&bytes[..cut]), expected, "cut at {cut}");
        }
        // A sixth varint byte, or a fifth above four bits, overflows.
        assert_eq!(decode_nodes(&[0xff, 0xff, 0xff, 0xff, 0x1f]), None);
        assert_eq!(decode_nodes(&[]), Some(Vec::new()));
        // A huge old-layout count with no nodes behind it fails, without
        // reserving for it.
        let config = bincode::config::standard();
        let mut huge = Vec::new();
        huge.push(253u8);
        huge.extend_from_slice(&(u64::MAX - 1).to_le_bytes());
        let r: Result<(Tree, usize), _> = bincode::serde::decode_from_slice(&huge, config);
        assert!(r.is_err());
    }
}
