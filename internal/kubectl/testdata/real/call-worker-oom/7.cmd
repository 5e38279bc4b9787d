get persistentvolumeclaims -n voice
