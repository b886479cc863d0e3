|a x y
| 3:4 w
