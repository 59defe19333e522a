/* rope: placeholder */
