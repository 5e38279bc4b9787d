get pods -n voice
