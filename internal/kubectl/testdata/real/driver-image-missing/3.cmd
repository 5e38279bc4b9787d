get events -n inference
