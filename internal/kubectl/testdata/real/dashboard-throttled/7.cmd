get persistentvolumeclaims -n homepage
