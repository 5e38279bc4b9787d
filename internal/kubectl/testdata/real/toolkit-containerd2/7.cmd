get persistentvolumeclaims -n assist
