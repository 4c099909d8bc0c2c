//! A mixed crowd's one rule: its models share the first one's clips, by
//! name and in order — bodies dressed on one animation library (`throng
//! bake --clips-from`), so that clip `k` is the same motion on every body
//! and one herd's clips, walks and steering gaits fit them all.
//! [`check_shared_clips`] refuses models that do not, naming both; the
//! command line's `render`, the viewer and the web page ask it.

use throng_crowd::crowd::ModelHandle;

/// Checks that every model of `models` (each with the name the user gave
/// it: a path or a URL) has the first one's clip names in its order; the
/// error names the first that does not, the first model, and both lists.
pub fn check_shared_clips(models: &[(String, &ModelHandle)]) -> Result<(), String> {
    let names = |h: &ModelHandle| -> Vec<String> {
        h.model().clips.iter().map(|c| c.name.clone()).collect()
    };
    let Some((first_name, first)) = models.first() else {
        return Ok(());
    };
    let expected = names(first);
    for (name, handle) in &models[1..] {
        let clips = names(handle);
        if clips != expected {
            return Err(format!(
                "{name}: a mixed crowd's models share their clips, and its clips {clips:?} are not those of {first_name} ({expected:?}); bake the bodies with the same --clips-from"
            ));
        }
    }
    Ok(())
}
