describe deployment call-worker -n voice
