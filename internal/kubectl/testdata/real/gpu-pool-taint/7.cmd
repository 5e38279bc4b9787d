get persistentvolumeclaims -n nlp-train
