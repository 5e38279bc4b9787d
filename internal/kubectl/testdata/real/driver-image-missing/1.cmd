get pods -n inference
