describe node cp-1
