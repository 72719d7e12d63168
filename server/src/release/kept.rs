//! What the layers above learn of one release and keep while it is served (the API's filter
//! sets, the response cache, the website's summary): each layer owns its type and how it is
//! made; the release only holds one value of each type, and drops them with itself, so a new
//! file starts with nothing learnt.

use std::any::{Any, TypeId};
use std::sync::{Arc, PoisonError, RwLock};

/// One value per type, made on first use.
#[derive(Default)]
pub struct Kept(RwLock<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>);

impl Kept {
    /// The value of type `T` kept, if one was.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        find(&self.0.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The value of type `T` kept, or `make()`'s, kept from now on. `make` runs outside the
    /// lock (it may take a while); when two threads make one at once, the first kept wins.
    pub fn get_or_make<T: Any + Send + Sync, E>(
        &self,
        make: impl FnOnce() -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        if let Some(value) = self.get() {
            return Ok(value);
        }
        let made = Arc::new(make()?);
        let mut values = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(first) = find(&values) {
            return Ok(first);
        }
        values.push((TypeId::of::<T>(), made.clone()));
        Ok(made)
    }
}

fn find<T: Any + Send + Sync>(values: &[(TypeId, Arc<dyn Any + Send + Sync>)]) -> Option<Arc<T>> {
    let (_, value) = values.iter().find(|(id, _)| *id == TypeId::of::<T>())?;
    value.clone().downcast().ok()
}
