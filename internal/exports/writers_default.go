package exports

// defaultWriters are exportfile's writers, as far as they exist.
func defaultWriters() Writers { return Writers{} }
