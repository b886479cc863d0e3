set terminal pngcairo size 800,500
set output 'modes-a9a-speedup.png'
set title 'Speed-up over serial'
set xlabel 'threads'
set ylabel 'speed-up (x)'
set key top left
set grid
set xrange [0.8:3]
plot x title 'linear' with lines dashtype 2 lc 'gray', 'modes-a9a-data.txt' index 0 using 1:2 with linespoints title 'lockfree', 'modes-a9a-data.txt' index 1 using 1:2 with linespoints title 'buffered', 'modes-a9a-data.txt' index 2 using 1:2 with linespoints title 'atomic', 'modes-a9a-data.txt' index 3 using 1:2 with linespoints title 'striped', 'modes-a9a-data.txt' index 4 using 1:2 with linespoints title 'locked'
unset xrange
set output 'modes-a9a-loss.png'
set title 'Test loss vs wall time'
set xlabel 'seconds'
set ylabel 'loss'
set key top right
plot 'modes-a9a-data.txt' index 5 using 1:2 with linespoints title 'serial, 1 thread', 'modes-a9a-data.txt' index 6 using 1:2 with linespoints title 'lockfree, 2 threads', 'modes-a9a-data.txt' index 7 using 1:2 with linespoints title 'buffered, 2 threads', 'modes-a9a-data.txt' index 8 using 1:2 with linespoints title 'atomic, 2 threads', 'modes-a9a-data.txt' index 9 using 1:2 with linespoints title 'striped, 2 threads', 'modes-a9a-data.txt' index 10 using 1:2 with linespoints title 'locked, 2 threads'
set terminal svg size 800,500
set output 'modes-a9a-speedup.svg'
set title 'Speed-up over serial'
set xlabel 'threads'
set ylabel 'speed-up (x)'
set key top left
set grid
set xrange [0.8:3]
plot x title 'linear' with lines dashtype 2 lc 'gray', 'modes-a9a-data.txt' index 0 using 1:2 with linespoints title 'lockfree', 'modes-a9a-data.txt' index 1 using 1:2 with linespoints title 'buffered', 'modes-a9a-data.txt' index 2 using 1:2 with linespoints title 'atomic', 'modes-a9a-data.txt' index 3 using 1:2 with linespoints title 'striped', 'modes-a9a-data.txt' index 4 using 1:2 with linespoints title 'locked'
unset xrange
set output 'modes-a9a-loss.svg'
set title 'Test loss vs wall time'
set xlabel 'seconds'
set ylabel 'loss'
set key top right
plot 'modes-a9a-data.txt' index 5 using 1:2 with linespoints title 'serial, 1 thread', 'modes-a9a-data.txt' index 6 using 1:2 with linespoints title 'lockfree, 2 threads', 'modes-a9a-data.txt' index 7 using 1:2 with linespoints title 'buffered, 2 threads', 'modes-a9a-data.txt' index 8 using 1:2 with linespoints title 'atomic, 2 threads', 'modes-a9a-data.txt' index 9 using 1:2 with linespoints title 'striped, 2 threads', 'modes-a9a-data.txt' index 10 using 1:2 with linespoints title 'locked, 2 threads'
