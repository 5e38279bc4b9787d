get persistentvolumeclaims -n research
