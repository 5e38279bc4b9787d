get pods -n nlp-train -o wide
