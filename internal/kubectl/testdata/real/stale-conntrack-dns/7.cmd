get persistentvolumeclaims -n events
