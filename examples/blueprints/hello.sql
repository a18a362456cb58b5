CREATE TABLE greeting (id INT PRIMARY KEY, text VARCHAR(80));
INSERT INTO greeting VALUES (1, 'hello');
