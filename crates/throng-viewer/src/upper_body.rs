//! The viewer's animation-layer demo (`U`): every instance's upper body
//! plays one clip over whatever its legs play. Which bones are the "upper
//! body" and which clip it plays are chosen from the model's names.

use throng_core::layers::{NO_PARENT, Skeleton};
use throng_core::model::BakedModel;

/// The root of the upper body: the first bone (parents first) named like a
/// spine, else the head bone's parent, else the head.
pub fn root(model: &BakedModel, skeleton: &Skeleton) -> usize {
    let spine = skeleton
        .order()
        .iter()
        .map(|&b| b as usize)
        .find(|&b| model.bones[b].name.to_ascii_lowercase().contains("spine"));
    spine.unwrap_or_else(|| {
        let head = crate::props::head_bone(model);
        match skeleton.parent(head as u32) {
            NO_PARENT => head,
            p => p as usize,
        }
    })
}

/// The clip the upper body plays: one named like "survey", "idle" or
/// "look", else the first clip.
pub fn clip(model: &BakedModel) -> usize {
    ["survey", "idle", "look"]
        .iter()
        .find_map(|word| {
            model
                .clips
                .iter()
                .position(|c| c.name.to_ascii_lowercase().contains(word))
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fox_surveys_from_its_spine() {
        let handle = crate::test_model::fox();
        let model = handle.model();
        let skeleton = Skeleton::new(model);
        assert_eq!(model.bones[root(model, &skeleton)].name, "b_Spine01_02");
        assert_eq!(model.clips[clip(model)].name, "Survey");
    }
}
