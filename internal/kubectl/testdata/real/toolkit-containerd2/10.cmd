describe deployment summarizer -n assist
