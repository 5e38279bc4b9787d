describe deployment ranker -n inference
