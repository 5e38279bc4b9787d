get resourcequotas -n nlp-train
