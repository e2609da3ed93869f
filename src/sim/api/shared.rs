//! `Shared<T>`: a value shared by reference count and copied only when written (copy on write),
//! so that a pod template held by a Deployment, its ReplicaSets and a thousand pods is stored
//! once, and snapshots of the whole cluster stay cheap to clone.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// A shared, copy-on-write value. Reading derefs to `T`; writing through `DerefMut` first makes
/// this copy unique (`Arc::make_mut`), so other holders never see the change.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Shared<T: Clone>(Arc<T>);

impl<T: Clone> Shared<T> {
    /// Wraps a value.
    pub fn new(v: T) -> Shared<T> {
        Shared(Arc::new(v))
    }

    /// The value itself, copied only if another holder shares it.
    pub fn into_inner(self) -> T {
        Arc::unwrap_or_clone(self.0)
    }
}

impl<T: Clone> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Clone> DerefMut for Shared<T> {
    fn deref_mut(&mut self) -> &mut T {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: Clone + fmt::Debug> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: Clone> From<T> for Shared<T> {
    fn from(v: T) -> Self {
        Shared::new(v)
    }
}

impl<T: Clone + Serialize> Serialize for Shared<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de, T: Clone + Deserialize<'de>> Deserialize<'de> for Shared<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Shared::new)
    }
}
