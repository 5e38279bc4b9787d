describe pod summarizer-5b7c9d4f8-j6wpr -n assist
