get pods -n nlp-train
