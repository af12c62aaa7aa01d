//! The SCC mesh: cores → tiles → (x, y) coordinates, and hop distances under X-Y routing.
//!
//! Seed 004 §2.3: 48 cores, two per tile, 24 tiles on a 6×4 mesh numbered (0,0) to (5,3), one
//! router per tile, deterministic X-Y routing. The put/get model's distance `d` is "the number of
//! routers traversed by one packet" (§4.1.1): a packet between tiles (x1,y1) and (x2,y2) crosses
//! |x1−x2| + |y1−y2| links, hence that many routers plus one. The seed confirms it: the other core
//! of the same tile is at "1-hop distance" and the farthest pair at "the 9-hop distance (maximum
//! distance)" (§4.1.2), (0,0)→(5,3) = 5 + 3 + 1.

use crate::error::ModelError;

/// A tile's mesh coordinates: column `x` (0 = left) and row `y` (0 = bottom).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tile {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
}

impl Tile {
    /// Routers a packet traverses from this tile's router to `other`'s under X-Y routing:
    /// |Δx| + |Δy| + 1 (seed 004 §4.1.1–4.1.2).
    pub fn routers_to(self, other: Tile) -> u32 {
        self.x.abs_diff(other.x) + self.y.abs_diff(other.y) + 1
    }
}

/// The tile mesh of an SCC-like chip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mesh {
    /// Tiles per row (6 on the SCC).
    pub columns: u32,
    /// Rows of tiles (4 on the SCC).
    pub rows: u32,
    /// Cores per tile (2 on the SCC).
    pub cores_per_tile: u32,
    /// Tiles whose routers the memory controllers are attached to, in the order ties are broken.
    pub memory_controllers: Vec<Tile>,
}

impl Mesh {
    /// Number of tiles.
    pub fn tiles(&self) -> u32 {
        self.columns * self.rows
    }

    /// Number of cores.
    pub fn cores(&self) -> u32 {
        self.tiles() * self.cores_per_tile
    }

    /// The largest router count between two tiles: (columns − 1) + (rows − 1) + 1 (9 on the SCC).
    pub fn max_routers(&self) -> u32 {
        self.columns + self.rows - 1
    }

    /// The tile of `core`: core c is on tile ⌊c / cores_per_tile⌋, tile t at
    /// (t mod columns, ⌊t / columns⌋) — RCCE's numbering.
    pub fn tile_of(&self, core: u32) -> Result<Tile, ModelError> {
        if core >= self.cores() {
            return Err(ModelError::Parameter {
                name: "core".into(),
                value: core.to_string(),
                reason: format!("the mesh has cores 0..{}", self.cores() - 1),
            });
        }
        let t = core / self.cores_per_tile;
        Ok(Tile {
            x: t % self.columns,
            y: t / self.columns,
        })
    }

    /// Routers traversed between the cores `a` and `b` (the `d` of seed 004 Fig. 4.1 for an MPB
    /// access by `a` to the MPB of `b`): 1 on the same tile, 9 at most on the SCC.
    pub fn distance(&self, a: u32, b: u32) -> Result<u32, ModelError> {
        Ok(self.tile_of(a)?.routers_to(self.tile_of(b)?))
    }

    /// The memory controller serving `core`'s private memory: the nearest one, ties going to the
    /// first listed (with the SCC's controllers listed (0,0), (5,0), (0,2), (5,2) this is the
    /// quadrant mapping of the default look-up tables).
    pub fn memory_controller_of(&self, core: u32) -> Result<Tile, ModelError> {
        let tile = self.tile_of(core)?;
        self.memory_controllers
            .iter()
            .copied()
            .min_by_key(|mc| tile.routers_to(*mc))
            .ok_or_else(|| ModelError::NotMeasured {
                machine: "the mesh".into(),
                what: "memory controller".into(),
            })
    }

    /// Routers between `core` and its memory controller (the `d` of off-chip accesses, Eqs.
    /// 4.4–4.6).
    pub fn memory_distance(&self, core: u32) -> Result<u32, ModelError> {
        let tile = self.tile_of(core)?;
        Ok(tile.routers_to(self.memory_controller_of(core)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scc() -> Mesh {
        Mesh {
            columns: 6,
            rows: 4,
            cores_per_tile: 2,
            memory_controllers: vec![
                Tile { x: 0, y: 0 },
                Tile { x: 5, y: 0 },
                Tile { x: 0, y: 2 },
                Tile { x: 5, y: 2 },
            ],
        }
    }

    #[test]
    fn cores_map_to_tiles_and_coordinates() {
        let m = scc();
        assert_eq!(m.cores(), 48);
        assert_eq!(m.tile_of(0).unwrap(), Tile { x: 0, y: 0 });
        assert_eq!(m.tile_of(1).unwrap(), Tile { x: 0, y: 0 });
        assert_eq!(m.tile_of(2).unwrap(), Tile { x: 1, y: 0 });
        // Core 13 is on tile 6, the first tile of the second row.
        assert_eq!(m.tile_of(13).unwrap(), Tile { x: 0, y: 1 });
        assert_eq!(m.tile_of(47).unwrap(), Tile { x: 5, y: 3 });
        assert!(m.tile_of(48).is_err());
    }

    #[test]
    fn distances_match_the_seed_extremes() {
        let m = scc();
        // Seed 004 §4.1.2: the other core of the same tile is 1 hop, the farthest pair 9.
        assert_eq!(m.distance(0, 1).unwrap(), 1);
        assert_eq!(m.distance(0, 47).unwrap(), 9);
        assert_eq!(m.max_routers(), 9);
        // Tile (1,0) to tile (3,2): 2 + 2 links, 5 routers; symmetric.
        assert_eq!(m.distance(2, 2 * 15).unwrap(), 5);
        assert_eq!(m.distance(30, 2).unwrap(), 5);
        assert!(m.distance(0, 99).is_err());
    }

    #[test]
    fn memory_controllers_by_quadrant() {
        let m = scc();
        // Tile (2,1) (core 16) is equally far from (0,0) and (0,2): the first listed wins.
        assert_eq!(m.memory_controller_of(16).unwrap(), Tile { x: 0, y: 0 });
        assert_eq!(m.memory_distance(16).unwrap(), 4);
        // Tile (3,3) (core 42) uses (5,2): 2 + 1 links, 4 routers.
        assert_eq!(m.memory_controller_of(42).unwrap(), Tile { x: 5, y: 2 });
        assert_eq!(m.memory_distance(42).unwrap(), 4);
        // Core 0 sits on the controller's tile: one router.
        assert_eq!(m.memory_distance(0).unwrap(), 1);
    }
}
