get persistentvolumeclaims -n arc-runners
