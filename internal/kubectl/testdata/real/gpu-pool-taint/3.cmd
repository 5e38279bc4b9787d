get events -n nlp-train
